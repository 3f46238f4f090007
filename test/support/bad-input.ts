/**
 * Bad bodies of SPEC section 10, for any POST route: each with the code it must answer.
 * `valid` is a body the route would accept, so size and type cases differ from it in one way only.
 */
export interface BadBody {
  readonly name: string;
  /** Raw body text, sent as-is. */
  readonly text: string;
  readonly contentType?: string;
  readonly code: number;
  /** What the description must mention. */
  readonly mentions?: RegExp;
}

const PAD = 'x'.repeat(66 * 1024);

export function badBodies(valid: Record<string, unknown>): BadBody[] {
  const validText = JSON.stringify(valid);
  return [
    { name: 'truncated JSON', text: validText.slice(0, Math.max(1, validText.length - 3)), code: 400, mentions: /not valid JSON/ },
    { name: 'an unterminated string', text: '{"a": "b', code: 400, mentions: /not valid JSON/ },
    { name: 'JavaScript, not JSON', text: "{payer: 'x', reason: 'y'}", code: 400, mentions: /not valid JSON/ },
    { name: 'a trailing comma', text: '{"a": 1,}', code: 400, mentions: /not valid JSON/ },
    { name: 'a NaN literal', text: '{"a": NaN}', code: 400, mentions: /not valid JSON/ },
    { name: 'an Infinity literal', text: '{"a": Infinity}', code: 400, mentions: /not valid JSON/ },
    { name: 'two JSON objects', text: `${validText}${validText}`, code: 400, mentions: /not valid JSON/ },
    { name: 'a byte-order mark and garbage', text: '\uFEFF\u0000\u0001{', code: 400, mentions: /not valid JSON/ },
    { name: 'a JSON array', text: `[${validText}]`, code: 400, mentions: /JSON object/ },
    { name: 'JSON null', text: 'null', code: 400, mentions: /JSON object/ },
    { name: 'a JSON string', text: '"hello"', code: 400, mentions: /JSON object/ },
    { name: 'a JSON number', text: '42', code: 400, mentions: /JSON object/ },
    { name: 'a huge JSON number', text: '1e400', code: 400, mentions: /JSON object/ },
    { name: 'JSON true', text: 'true', code: 400, mentions: /JSON object/ },
    { name: 'JSON nested 5,000 levels deep', text: `{"deep":${'['.repeat(5000)}${']'.repeat(5000)}}`, code: 400, mentions: /nested/ },
    { name: 'objects nested 3,000 levels deep', text: `{"deep":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}`, code: 400, mentions: /nested/ },
    { name: 'a text/plain body', text: validText, contentType: 'text/plain', code: 415, mentions: /Content-Type/ },
    { name: 'a form body', text: 'payer=x&reason=y', contentType: 'application/x-www-form-urlencoded', code: 415, mentions: /Content-Type/ },
    { name: 'an XML body', text: '<payer>x</payer>', contentType: 'application/xml', code: 415, mentions: /Content-Type/ },
    { name: 'a JSON look-alike type', text: validText, contentType: 'application/jsonp', code: 415, mentions: /Content-Type/ },
    { name: 'a valid body padded over 64 KiB', text: JSON.stringify({ ...valid, pad: PAD }), code: 413, mentions: /64 KiB/ },
    { name: 'garbage over 64 KiB', text: `{${PAD}`, code: 413, mentions: /64 KiB/ },
  ];
}

/** Payment ids no route may resolve: unicode, path traversal, control characters, oversize. */
export const HOSTILE_IDS: readonly (readonly [string, string])[] = [
  ['unicode', encodeURIComponent('pay_☃💳ÄÖÜ')],
  ['right-to-left override', encodeURIComponent('pay_\u202Egnp.exe')],
  ['encoded path traversal', '..%2F..%2F..%2Fetc%2Fpasswd'],
  ['double-encoded path traversal', '..%252F..%252Fetc%252Fpasswd'],
  ['backslash traversal', encodeURIComponent('..\\..\\windows\\win.ini')],
  ['a NUL byte', 'pay_abc%00def'],
  ['a CRLF (header injection)', 'pay_abc%0D%0ASet-Cookie:%20x=y'],
  ['a broken percent escape', 'pay_%ZZ'],
  ['an SQL injection', encodeURIComponent("pay_' OR '1'='1")],
  ['a JSON fragment', encodeURIComponent('{"$ne":null}')],
  ['a prototype key', '__proto__'],
  ['constructor', 'constructor'],
  ['a 2,000 character id', `pay_${'A'.repeat(2000)}`],
  ['a wrong-case real-looking id', 'PAY_0123456789ABCDEFGHIJKL'],
];
