/**
 * Fault-rule path globs are matched on every public request, so a merchant's glob must not be
 * able to stall the server: the match takes at most 3 steps per path character plus the glob's length.
 * Time is not measured: the adversarial cases below took the old RegExp matcher (`.*` per star,
 * backtracking) time exponential in the number of stars — `/*a*a*a*b` on 380 `a`s blocked the
 * loop ~1 s, 500 took 13 s, and with 8 stars on 5,000 characters it would never finish — so
 * a test that simply returns is the proof, and the step counter bounds the work exactly.
 */
import { describe, expect, it } from 'vitest';
import { globMatches, ruleMatches } from '../../src/domain/faults.js';
import type { FaultRule } from '../../src/domain/faults.js';
import { call, expectEnvelope, quietSandbox } from '../support/http.js';

function rule(path: string, method = '*'): FaultRule {
  return { id: 'fr_1', match: { method, path }, fault: 'error=503', probability: 1, timesLeft: null, seed: 1, matched: 0, fired: 0, createdAt: 0 };
}

/** The matcher the sandbox had before: the reference of what a glob means (on short texts only). */
function regexMatches(glob: string, path: string): boolean {
  const escaped = glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`).test(path);
}

const PREFIX = '/openapi/v1/payments/payment/';

describe('fault-rule path globs against adversarial paths', () => {
  it('a glob of many stars on a 5,000-character path answers, and answers right', () => {
    const glob = '/*a*a*a*a*a*a*a*a*b';
    const as = PREFIX + 'a'.repeat(5_000);
    expect(ruleMatches(rule(glob), 'GET', as)).toBe(false);
    expect(ruleMatches(rule(glob), 'GET', `${as}b`)).toBe(true);
    expect(ruleMatches(rule('*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*c'), 'GET', 'a'.repeat(5_000))).toBe(false);
  });

  it('the work is linear: at most 3 steps per path character plus the glob, also at the caps (256-character globs, 2,048-character paths)', () => {
    const cap = (glob: string) => glob.slice(0, 256);
    const cases: [string, string][] = [
      ['/*a*a*a*b', PREFIX + 'a'.repeat(380)],
      ['/*a*a*a*a*a*a*a*a*b', PREFIX + 'a'.repeat(5_000)],
      [`*${'a'.repeat(200)}b`, 'a'.repeat(5_000)],
      [`${'*a'.repeat(120)}*b`, 'a'.repeat(5_000)],
      ['*' + 'ab*'.repeat(80) + 'c', 'ab'.repeat(2_500)],
      // The star-backtracking loop took (path × glob) steps on these: each star retried every place.
      [cap(`/openapi/v1/*${'a'.repeat(240)}b*`), PREFIX + 'a'.repeat(2_048 - PREFIX.length)],
      [cap(`*${'aaaaaaab*'.repeat(30)}`), 'aaaaaaa'.repeat(292)],
      [cap(`*${'a'.repeat(254)}c`), 'a'.repeat(2_048)],
    ];
    for (const [glob, path] of cases) {
      const steps = { count: 0 };
      expect(globMatches(glob, path, steps), glob).toBe(false);
      expect(steps.count, glob).toBeLessThanOrEqual(3 * (path.length + 1) + glob.length);
    }
  });

  it('means exactly what the RegExp meant: * is any run but a line break, all else literal, anchored, case kept', () => {
    const samples: [string, string, boolean][] = [
      ['*/payments/payment', '/openapi/v1/payments/payment', true],
      ['/openapi/v1/payments/payment/*', '/openapi/v1/payments/payment/', true],
      ['/openapi/v1/payments/payment/*', '/openapi/v1/payments/payment', false],
      ['/x', '/x/', false],
      ['/X', '/x', false],
      ['*', '', true],
      ['/a.b', '/aXb', false],
      ['/a?(b)|[c]$^{1}+\\', '/a?(b)|[c]$^{1}+\\', true],
      ['/a*b', '/a\nb', false],
      ['/a*b', '/a\u2028b', false],
      ['/a*b', '/a\u00e9\ud83d\ude00b', true],
    ];
    for (const [glob, path, expected] of samples) {
      expect(globMatches(glob, path), `${glob} ~ ${JSON.stringify(path)}`).toBe(expected);
      expect(regexMatches(glob, path), `${glob} ~ ${JSON.stringify(path)}`).toBe(expected);
    }
  });

  it('agrees with the RegExp on 40,000 seeded random globs and paths', () => {
    let state = 0x2545f491;
    const next = () => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return (state >>> 0) / 2 ** 32;
    };
    const globAlphabet = ['a', 'b', '/', '.', '*', '*', '\n', '\r', '\u2028', 'A'];
    const pathAlphabet = ['a', 'b', '/', '.', '*', '\n', '\r', '\u2028', 'A', 'x'];
    const draw = (alphabet: string[], max: number) => Array.from({ length: Math.floor(next() * (max + 1)) }, () => alphabet[Math.floor(next() * alphabet.length)]!).join('');
    for (let i = 0; i < 30_000; i++) {
      const glob = draw(globAlphabet, 7);
      const path = draw(pathAlphabet, 9);
      if (globMatches(glob, path) !== regexMatches(glob, path)) expect({ glob, path, matches: globMatches(glob, path) }).toEqual({ glob, path, matches: regexMatches(glob, path) });
    }
    // Longer pieces over two letters: where a piece's first place and its borders matter.
    for (let i = 0; i < 10_000; i++) {
      const glob = draw(['a', 'b', 'a', '*'], 14);
      const path = draw(['a', 'b', 'a'], 40);
      if (globMatches(glob, path) !== regexMatches(glob, path)) expect({ glob, path, matches: globMatches(glob, path) }).toEqual({ glob, path, matches: regexMatches(glob, path) });
    }
  });

  it('a rule /*a*a*a*b leaves a GET of 2,000 a’s alone and still fires when the path ends in b', async () => {
    const sandbox = await quietSandbox();
    try {
      const added = await call(sandbox, 'POST', '/sandbox/v1/faults', { body: { match: { method: 'GET', path: '/*a*a*a*b' }, fault: 'error=503' } });
      expectEnvelope(added, 200);
      expectEnvelope(await call(sandbox, 'GET', `${PREFIX}${'a'.repeat(2_000)}`), 404);
      expectEnvelope(await call(sandbox, 'GET', `${PREFIX}${'a'.repeat(2_000)}b`), 503);
    } finally {
      await sandbox.close();
    }
  });
});
