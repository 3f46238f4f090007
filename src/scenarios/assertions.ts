/** Checks a step's `expect` against what came back; every assertion is checked and reported. */
import { isDeepStrictEqual } from 'node:util';
import { RE2JS } from 're2js';
import { formatPath, getPath, parsePath } from './json-path.js';
import type { Expectations, Matcher, ValueExpectation } from './schema.js';
import { asText } from './template.js';

export type Outcome = 'response' | 'timeout' | 'dropped';

/** What the client saw. */
export interface Observed {
  readonly outcome: Outcome;
  readonly status?: number;
  readonly headers?: Headers;
  readonly text?: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  readonly json?: unknown;
}

export interface AssertionResult {
  /** What was checked: "status", "code", "body $.payment_status", "header sandbox-warning"... */
  readonly target: string;
  readonly passed: boolean;
  readonly expected: string;
  readonly actual: string;
}

const ABSENT = '(absent)';
const MAX_SHOWN = 300;

function show(found: boolean, value: unknown): string {
  if (!found) return ABSENT;
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}...` : text;
}

/** A compiled `matches` or text pattern: tested in time linear in the text, whatever the pattern. */
export interface TextPattern {
  test(text: string): boolean;
}

/**
 * "/re/flags" or a plain pattern, compiled by RE2JS (RE2's syntax, linear-time matching): a
 * scenario file is input, and a backtracking engine spends exponential time on `(a+)+$`.
 * Flags i, m and s keep their meaning; g, y, d, u and v change nothing for a test. Throws,
 * naming what RE2 does not support (lookaround, backreferences), for a pattern it cannot run.
 */
export function toRegExp(pattern: string): TextPattern {
  const literal = /^\/(.*)\/([dgimsuvy]*)$/s.exec(pattern);
  const source = literal ? literal[1]! : pattern;
  const flags = literal ? literal[2]! : '';
  const bits = (flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0) | (flags.includes('m') ? RE2JS.MULTILINE : 0) | (flags.includes('s') ? RE2JS.DOTALL : 0);
  try {
    const re = RE2JS.compile(source, bits);
    return { test: (text) => re.test(text) };
  } catch (err) {
    throw new Error(`${(err as Error).message.replace(/^error parsing regexp: /, '')} (patterns use RE2 syntax, matched in linear time: no lookaround or backreferences)`);
  }
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export function isMatcher(e: unknown): e is Matcher {
  return e !== null && typeof e === 'object' && !Array.isArray(e);
}

/** Each failed rule of a matcher, as "expected" text; empty when the value passes. */
function matcherFailures(m: Matcher, found: boolean, value: unknown): string[] {
  const failures: string[] = [];
  const check = (ok: boolean, expected: string) => {
    if (!ok) failures.push(expected);
  };
  if (m.exists !== undefined) check(found === m.exists, m.exists ? 'to exist' : 'to be absent');
  if (!found && m.exists !== false && Object.keys(m).some((k) => k !== 'exists')) return [...failures, 'to exist'];
  if ('equals' in m) check(isDeepStrictEqual(value, m.equals), `equals ${JSON.stringify(m.equals)}`);
  if (m.matches !== undefined) check(value !== undefined && toRegExp(m.matches).test(asText(value)), `matches ${m.matches}`);
  if ('contains' in m) {
    const ok = Array.isArray(value) ? value.some((v) => isDeepStrictEqual(v, m.contains)) : typeof value === 'string' && value.includes(asText(m.contains));
    check(ok, `contains ${JSON.stringify(m.contains)}`);
  }
  if (m.type !== undefined) {
    const t = typeOf(value);
    check(m.type === 'integer' ? Number.isInteger(value) : t === m.type, `type ${m.type}`);
  }
  if (m.oneOf !== undefined) check(m.oneOf.some((v) => isDeepStrictEqual(value, v)), `one of ${JSON.stringify(m.oneOf)}`);
  // Bounds may come from templates ("{{expires_at}}"), so a numeric string counts as its number.
  const bound = (b: number | string) => Number(b);
  if (m.length !== undefined) check((typeof value === 'string' || Array.isArray(value)) && value.length === bound(m.length), `length ${m.length}`);
  const n = typeof value === 'number' ? value : NaN;
  if (m.gt !== undefined) check(n > bound(m.gt), `> ${m.gt}`);
  if (m.gte !== undefined) check(n >= bound(m.gte), `>= ${m.gte}`);
  if (m.lt !== undefined) check(n < bound(m.lt), `< ${m.lt}`);
  if (m.lte !== undefined) check(n <= bound(m.lte), `<= ${m.lte}`);
  return failures;
}

/** A scalar or array means equality; an object is a matcher. */
export function checkValue(target: string, expectation: ValueExpectation, found: boolean, value: unknown): AssertionResult {
  const actual = show(found, value);
  if (!isMatcher(expectation)) {
    return { target, passed: found && isDeepStrictEqual(value, expectation), expected: JSON.stringify(expectation), actual };
  }
  const failures = matcherFailures(expectation, found, value);
  const expected = failures.length > 0 ? failures.join(', ') : describeMatcher(expectation);
  return { target, passed: failures.length === 0, expected, actual };
}

function describeMatcher(m: Matcher): string {
  return Object.entries(m)
    .map(([k, v]) => `${k} ${JSON.stringify(v)}`)
    .join(', ');
}

/** For free text (description, raw body): a string is a regular expression. */
function checkText(target: string, expectation: string | Matcher, found: boolean, value: unknown): AssertionResult {
  if (typeof expectation === 'string') {
    const passed = typeof value === 'string' && toRegExp(expectation).test(value);
    return { target, passed, expected: `matches ${expectation}`, actual: show(found, value) };
  }
  return checkValue(target, expectation, found, value);
}

function field(json: unknown, name: string): { found: boolean; value: unknown } {
  return getPath(json, [name]);
}

export function checkExpectations(expect: Expectations, seen: Observed): AssertionResult[] {
  const results: AssertionResult[] = [];
  const wanted = expect.outcome ?? 'response';
  if (wanted !== seen.outcome) {
    const actual = seen.outcome === 'response' ? `a response (HTTP ${seen.status})` : seen.outcome === 'timeout' ? 'no response before the timeout' : 'the connection closed without a response';
    results.push({ target: 'outcome', passed: false, expected: wanted === 'response' ? 'a response' : wanted, actual });
    return results;
  }
  if (seen.outcome !== 'response') return results;

  if (expect.status !== undefined) results.push(checkValue('status', expect.status, true, seen.status));
  if (expect.code !== undefined) {
    const code = field(seen.json, 'code');
    results.push(checkValue('code', expect.code, code.found, code.value));
  }
  if (expect.description !== undefined) {
    const description = field(seen.json, 'description');
    results.push(checkText('description', expect.description, description.found, description.value));
  }
  for (const [path, expectation] of Object.entries(expect.body ?? {})) {
    const segments = parsePath(path);
    const at = getPath(seen.json, segments);
    results.push(checkValue(`body ${formatPath(segments)}`, expectation, at.found, at.value));
  }
  for (const [name, expectation] of Object.entries(expect.headers ?? {})) {
    const value = seen.headers?.get(name);
    const found = value !== null && value !== undefined;
    results.push(checkValue(`header ${name.toLowerCase()}`, expectation, found, value));
  }
  if (expect.text !== undefined) results.push(checkText('body text', expect.text, seen.text !== undefined, seen.text));
  return results;
}
