/**
 * The journal's 8 KiB cut must bound memory: V8 keeps `text.slice(0, n)` of a long string as a
 * view of the whole original, so a kept cut of a 60 KB body used to hold all 60 KB, and the
 * entry of a journal read held that read's whole answer (megabytes). The heap is measured after
 * a full collection (gc made callable at run time, as the config runs no --expose-gc), against
 * bounds far from both outcomes: what the bug retains is several times what the copy does.
 */
import { setFlagsFromString, getHeapStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import type { Sandbox } from '../../src/index.js';
import { JOURNAL_BODY_CAP, bodyToKeep } from '../../src/services/journal.js';
import { call, createBody, expectEnvelope } from '../support/http.js';

let gc: () => void;
beforeAll(() => {
  setFlagsFromString('--expose-gc');
  gc = runInNewContext('gc') as () => void;
});

/** The heap in use after a full collection, once the current turn's work is done. */
async function heapAfterGc(): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  gc();
  return getHeapStatistics().used_heap_size;
}

const MB = 1024 * 1024;

describe('bodyToKeep', () => {
  it('keeps the first 8 KiB of a long body as its own copy, masked, the same text as before', () => {
    const body = JSON.stringify({ sign: 's'.repeat(128), notes: 'n'.repeat(60_000) });
    const kept = bodyToKeep(body);
    expect(kept).toHaveLength(JOURNAL_BODY_CAP);
    expect(kept).toBe(body.replace('s'.repeat(128), '***ssss').slice(0, JOURNAL_BODY_CAP));
    const short = '{"a":"\ud83d\ude00"}';
    expect(bodyToKeep(short)).toBe(short);
    // A cut inside a character's surrogate pair keeps the half as it was.
    const split = `${'x'.repeat(JOURNAL_BODY_CAP - 1)}\ud83d\ude00${'y'.repeat(100)}`;
    expect(bodyToKeep(split)).toBe(split.slice(0, JOURNAL_BODY_CAP));
  });

  it('masks secret fields of a short body before it is kept, names written with \\u escapes too; other bodies pass untouched', () => {
    const sign = 'a1'.repeat(64);
    expect(bodyToKeep(JSON.stringify({ amount: 1, sign, metadata: { salt: 'pepper-pepper' } }))).toBe('{"amount":1,"sign":"***a1a1","metadata":{"salt":"***pper"}}');
    const escaped = `{"\\u0073ign":"${sign}","note":"\\u00e9"}`;
    expect(bodyToKeep(escaped)).toBe('{"sign":"***a1a1","note":"é"}');
    // Not JSON: the names as written are masked all the same.
    expect(bodyToKeep(`{"sign":"${sign}", \\u`)).toBe('{"sign":"***a1a1", \\u');
    const plain = '{"merchant_ref_no":"order-1","amount":10.5}';
    expect(bodyToKeep(plain)).toBe(plain);
  });

  it('keeps a body with \\u escapes as written when no secret name is escaped; an escaped name that a duplicate hides is masked all the same', () => {
    const sign = 'a1'.repeat(64);
    expect(bodyToKeep(`{"amount":10.50,"note":"caf\\u00e9","sign":"${sign}"}`)).toBe('{"amount":10.50,"note":"caf\\u00e9","sign":"***a1a1"}');
    // Parsing keeps the last of two same names: the escaped first one must not pass as text.
    const hidden = bodyToKeep(`{"\\u0073ign":"${sign}","sign":"b2"}`);
    expect(hidden).not.toContain('a1a1a1');
    expect(JSON.parse(hidden)).toEqual({ sign: '***' });
  });

  it('masks a 60 KB body that is not JSON, quotes escaped without end, in about the time of one that is', () => {
    const timed = (text: string) => {
      const runs = [0, 1, 2].map(() => {
        const started = performance.now();
        bodyToKeep(text);
        return performance.now() - started;
      });
      return runs.sort((a, b) => a - b)[1]!;
    };
    const hostile = `{"sign":"x","\\u0041":"${'\\"'.repeat(30_000)}`;
    const plain = JSON.stringify({ sign: 'x', note: 'caf', notes: Array.from({ length: 6_000 }, (_, i) => `n${i}`) }).replace('caf', 'caf\\u00e9');
    // Scanned for names from every quote, the first took over a second, quadratic in its length.
    expect(timed(hostile)).toBeLessThan(timed(plain) * 20 + 50);
  });

  it('masks a secret whose last characters are escapes without cutting an escape in two: the body stays JSON', () => {
    expect(bodyToKeep(JSON.stringify({ sign: 'abcdefgh"xyz', amount: 1 }))).toBe('{"sign":"***\\"xyz","amount":1}');
    expect(bodyToKeep(JSON.stringify({ salt: 'abcdefgh\\xyz' }))).toBe('{"salt":"***\\\\xyz"}');
    expect(JSON.parse(bodyToKeep(JSON.stringify({ secret: 'abcdefgh\n\u0001z' })))).toEqual({ secret: '***h\n\u0001z' });
  });

  it('200 kept cuts of 60 KB bodies hold about 200 × 8 KiB, not 200 × 60 KB', async () => {
    const before = await heapAfterGc();
    const kept: string[] = [];
    for (let i = 0; i < 200; i++) kept.push(bodyToKeep(`{"n":${i},"notes":"${'x'.repeat(60_000)}"}`));
    const held = (await heapAfterGc()) - before;
    expect(kept.every((k) => k.length === JOURNAL_BODY_CAP)).toBe(true);
    // A slice view holds ~11.5 MB here; copies ~1.6 MB.
    expect(held).toBeLessThan(5 * MB);
  });
});

describe('the journal of a sandbox (memory store) does not pin what it cut', () => {
  let sandbox: Sandbox;
  afterEach(() => sandbox.close());

  it('200 creates with 60 KB bodies leave their cuts, not their bodies, in memory', async () => {
    sandbox = await createSandbox({ store: 'memory', scheduler: false });
    await call(sandbox, 'GET', '/sandbox/v1/requests?limit=1');
    const before = await heapAfterGc();
    for (let i = 0; i < 200; i++) {
      expectEnvelope(await call(sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody({ notes: 'n'.repeat(60_000) }) }), 200);
    }
    const held = (await heapAfterGc()) - before;
    // Bodies held whole: ~12 MB on top of the payments; cut copies: ~2 MB with them.
    expect(held).toBeLessThan(6 * MB);
  });

  it('reading 500 entries of 8 KiB bodies five times leaves no answer behind in the journal', async () => {
    sandbox = await createSandbox({ store: 'memory', scheduler: false });
    for (let i = 0; i < 500; i++) {
      expectEnvelope(await call(sandbox, 'POST', '/sandbox/v1/tools/sign', { body: { n: i, notes: 'n'.repeat(JOURNAL_BODY_CAP) } }), 200);
    }
    const first = await call(sandbox, 'GET', '/sandbox/v1/requests?limit=500');
    expectEnvelope(first, 200);
    expect(first.body.requests).toHaveLength(500);
    expect(first.text.length).toBeGreaterThan(4 * MB);
    const before = await heapAfterGc();
    for (let i = 0; i < 5; i++) expectEnvelope(await call(sandbox, 'GET', '/sandbox/v1/requests?limit=500'), 200);
    const held = (await heapAfterGc()) - before;
    // Each read's own entry used to keep its whole answer (~8 MB) alive through the 8 KiB cut.
    expect(held).toBeLessThan(4 * MB);
  });
});
