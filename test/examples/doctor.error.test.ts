/**
 * The signature doctor knows Python's and PHP's mistakes (SPEC 21): each sign here is computed by
 * the real interpreter, the way a developer in that language gets it wrong, and the 401's
 * signature_hint must name that mistake; nothing is created.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { call, expectEnvelope, quietSandbox, SIGNED_KEY, SIGNED_PAYEE, SIGNED_SALT, stateOf } from '../support/http.js';
import { runExample } from './support.js';

/** Python: the example signer with one function swapped for the mistaken one (`patch`, Python source). */
const python = (patch: string) => [
  'python3',
  '-B',
  '-c',
  `import hashlib, json, sys\nsys.path.insert(0, "examples/python")\nimport sign_create as s\nright = s.canonical\n${patch}\n` +
    'body = json.loads(sys.stdin.read())\nprint(hashlib.sha512(s.string_to_sign(body, sys.argv[1]).encode()).hexdigest())',
];

/** PHP: a plain signer (ksort, number_format, implode) with `$value` (how each value is written) and `$join` (how the fields are joined) given. */
const php = (value: string, join = "implode('&', array_map(fn ($k, $v) => $k . '=' . $v, array_keys($b), $b))") => [
  'php',
  '-r',
  `function ks($v) { if (is_array($v)) { if (!array_is_list($v)) ksort($v); return array_map('ks', $v); } return $v; }
   $b = ks(json_decode(stream_get_contents(STDIN), true)); $salt = $argv[1];
   $b = array_filter($b, fn ($v) => $v !== null && $v !== '' && $v !== []);
   $b['amount'] = number_format($b['amount'], 2, '.', '');
   foreach ($b as $k => $x) $b[$k] = (function ($x) { ${value}; })($x);
   echo hash('sha512', ${join} . '&' . $salt);`,
];
/** PHP's right way of writing one value, for the cases whose mistake is elsewhere. */
const PHP_RIGHT = "$t = is_array($x) ? json_encode($x, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE) : (is_bool($x) ? ($x ? 'true' : 'false') : (string) $x); return strtr(rawurlencode($t), ['%21' => '!', '%2A' => '*', '%27' => \"'\", '%28' => '(', '%29' => ')'])";

const BODY = (extra = '') =>
  `{"payee":"${SIGNED_PAYEE}","product_type":"QR_DYNAMIC","merchant_ref_no":"doctor-${Date.now()}-${Math.random().toString(36).slice(2, 8)}","amount":100.50,` +
  `"payer":"O'Brien (VIP)!","metadata":{"note":"café ☕","path":"a/b","ratio":7.0,"n":100.50}${extra}}`;

const CASES: readonly { name: string; command: readonly string[]; body?: string; ids: readonly string[] }[] = [
  { name: "Python json.dumps(metadata) with its defaults", command: python('s.canonical = lambda v: json.dumps(v)'), ids: ['json-unicode-escaped', 'json-spaced-separators', 'numbers-with-fraction', 'metadata-keys-unsorted'] },
  { name: 'Python json.dumps(metadata, sort_keys=True)', command: python('s.canonical = lambda v: json.dumps(v, sort_keys=True)'), ids: ['json-unicode-escaped', 'json-spaced-separators', 'numbers-with-fraction'] },
  {
    name: 'Python json.dumps(..., separators=(",", ":"), sort_keys=True) without ensure_ascii=False, metadata without floats',
    command: python('s.canonical = lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"))'),
    body: BODY().replace(',"ratio":7.0,"n":100.50', ''),
    ids: ['json-unicode-escaped'],
  },
  { name: 'Python floats: 7.0 kept in canonical JSON', command: python('s.canonical = lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)'), ids: ['numbers-with-fraction'] },
  { name: 'Python str(True) for a boolean field', command: python('s.canonical = lambda v: str(v) if isinstance(v, bool) else right(v)'), body: BODY(',"gift":true'), ids: ['booleans-not-true-false'] },
  { name: 'PHP rawurlencode without restoring !*\'()', command: php(PHP_RIGHT.replace(/strtr\((rawurlencode\(\$t\)), \[.*\]\)$/, '$1')), ids: ['php-rawurlencode'] },
  { name: 'PHP json_encode(metadata) with its defaults (\\/ and \\uXXXX)', command: php(PHP_RIGHT.replace('json_encode($x, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE)', 'json_encode($x)')), ids: ['json-escaped-slashes', 'json-unicode-escaped'] },
  { name: 'PHP json_encode(metadata, JSON_UNESCAPED_UNICODE) (\\/ only)', command: php(PHP_RIGHT.replace('JSON_UNESCAPED_SLASHES | ', '')), ids: ['json-escaped-slashes'] },
  { name: 'PHP (string) true for a boolean field', command: php(PHP_RIGHT.replace("($x ? 'true' : 'false')", '(string) $x')), body: BODY(',"gift":true'), ids: ['booleans-not-true-false'] },
  { name: 'PHP http_build_query of the sorted body', command: php('return $x', 'http_build_query(array_map(fn ($x) => $x, $b))'), ids: ['php-http-build-query'] },
];

describe('the signature doctor names what Python and PHP do by mistake', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await quietSandbox();
  });
  afterAll(() => sandbox.close());

  it.each(CASES)('$name', async ({ command, body = BODY(), ids }) => {
    const run = await runExample(command, [SIGNED_SALT], {}, body);
    expect(run.stderr).toBe('');
    const sign = run.stdout.trim();
    expect(sign).toMatch(/^[0-9a-f]{128}$/);
    const before = await stateOf(sandbox, [SIGNED_KEY]);
    const answer = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { key: SIGNED_KEY, body: `${body.slice(0, -1)},"sign_type":"SHA512","sign":"${sign}"}` });
    expectEnvelope(answer, 401);
    const named = [...String(answer.body.signature_hint).matchAll(/\[([a-z0-9-]+)\]/g)].map((m) => m[1]);
    expect(named.sort(), answer.body.signature_hint).toEqual([...ids].sort());
    expect(answer.body.signature_hint).not.toContain(SIGNED_SALT);
    expect(await stateOf(sandbox, [SIGNED_KEY])).toBe(before);
  });
});
