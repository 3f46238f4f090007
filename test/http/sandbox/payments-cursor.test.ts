/**
 * GET /sandbox/v1/payments pages with a cursor: every payment once, newest first, stable while
 * payments are created; a cursor is opaque and works only on the list of the merchant it came from;
 * a search matches payment_id, merchant_ref_no or payer; 10,000 payments answer fast.
 */
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { newPayment } from '../../../src/domain/payment.js';
import type { Sandbox } from '../../../src/index.js';
import { call, control, createPayment, DEMO_PAYEE, expectEnvelope, memorySandbox, sandboxPerTest, SIGNED_KEY, stateOf } from '../../support/http.js';

const each = sandboxPerTest();

type Page = { total: number; next_cursor: string | null; payments: { payment_id: string; merchant_ref_no: string }[] };

async function page(sandbox: Sandbox, query: string, key?: string): Promise<Page> {
  const answer = await call(sandbox, 'GET', `/sandbox/v1/payments?${query}`, key ? { key } : {});
  expectEnvelope(answer, 200);
  return answer.body as Page;
}

async function walk(sandbox: Sandbox, query: string): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const p: Page = await page(sandbox, query + (cursor ? `&cursor=${cursor}` : ''));
    seen.push(...p.payments.map((x) => x.payment_id));
    cursor = p.next_cursor;
  } while (cursor);
  return seen;
}

describe('cursor paging', () => {
  it('walks every payment once, newest first, with total on each page and null at the end', async () => {
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await createPayment(each.sandbox)).payment_id);
    const first = await page(each.sandbox, 'limit=3');
    expect(first.total).toBe(7);
    expect(first.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(first.next_cursor).not.toContain(made[4]);
    expect(await walk(each.sandbox, 'limit=3')).toEqual([...made].reverse());
    const all = await page(each.sandbox, 'limit=7');
    expect(all.next_cursor).toBeNull();
  });

  it('does not shift when payments are created between pages', async () => {
    const made: string[] = [];
    for (let i = 0; i < 4; i++) made.push((await createPayment(each.sandbox)).payment_id);
    const first = await page(each.sandbox, 'limit=2');
    await createPayment(each.sandbox);
    await createPayment(each.sandbox);
    const second = await page(each.sandbox, `limit=2&cursor=${first.next_cursor}`);
    expect(second.payments.map((p) => p.payment_id)).toEqual([made[1], made[0]]);
    expect(second.total).toBe(6);
    expect(second.next_cursor).toBeNull();
  });

  it('keeps the filters on every page, and offset still works without a cursor', async () => {
    const paid: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { payment_id } = await createPayment(each.sandbox);
      if (i % 2 === 0) {
        await control(each.sandbox, payment_id, 'pay');
        paid.push(payment_id);
      }
    }
    expect(await walk(each.sandbox, 'status=A&limit=1')).toEqual([...paid].reverse());
    const offset = await page(each.sandbox, 'status=A&limit=1&offset=1');
    expect(offset.payments.map((p) => p.payment_id)).toEqual([paid[1]]);
    expect(offset.next_cursor).not.toBeNull();
  });

  it('searches by payment_id, a part of merchant_ref_no, or the payer, letter case ignored', async () => {
    const a = await createPayment(each.sandbox, { merchant_ref_no: 'ORDER-apple-1' });
    const b = await createPayment(each.sandbox, { merchant_ref_no: 'order-pear-2', payer: 'Alice.W' });
    await createPayment(each.sandbox, { merchant_ref_no: 'other-3' });
    const ids = async (search: string) => (await page(each.sandbox, `search=${encodeURIComponent(search)}`)).payments.map((p) => p.payment_id);
    expect(await ids(a.payment_id)).toEqual([a.payment_id]);
    expect(await ids('order-')).toEqual([b.payment_id, a.payment_id]);
    expect(await ids('APPLE')).toEqual([a.payment_id]);
    expect(await ids('alice')).toEqual([b.payment_id]);
    expect(await ids('nothing-like-it')).toEqual([]);
    // An id is matched whole: a part of one matches nothing.
    expect(await ids(a.payment_id.slice(0, 10))).toEqual([]);
  });
});

describe('bad cursors', () => {
  it.each([
    ['not base64 JSON', 'bm90IGpzb24'],
    ['made up', Buffer.from(JSON.stringify([1, 'x', 'pay_x'])).toString('base64url')],
    ['characters a cursor never has', 'abc%2Fdef'],
    ['too long', 'a'.repeat(201)],
  ])('answers 400 in the envelope for a cursor %s, changing nothing', async (_why, cursor) => {
    await createPayment(each.sandbox);
    const before = await stateOf(each.sandbox);
    const answer = await call(each.sandbox, 'GET', `/sandbox/v1/payments?cursor=${cursor}`);
    expectEnvelope(answer, 400);
    // Worded as every bad query parameter is, whichever check refused it.
    expect(answer.body.description).toMatch(/^Invalid query parameter cursor: /);
    expect(await stateOf(each.sandbox)).toBe(before);
  });

  it("refuses another merchant's cursor like a made-up one, and a cursor together with offset", async () => {
    for (let i = 0; i < 3; i++) await createPayment(each.sandbox);
    const { next_cursor } = await page(each.sandbox, 'limit=1');
    const other = await call(each.sandbox, 'GET', `/sandbox/v1/payments?cursor=${next_cursor}`, { key: SIGNED_KEY });
    expectEnvelope(other, 400);
    const madeUp = await call(each.sandbox, 'GET', `/sandbox/v1/payments?cursor=${Buffer.from('[1,"x","y"]').toString('base64url')}`, { key: SIGNED_KEY });
    expect(other.body.description).toBe(madeUp.body.description);
    const both = await call(each.sandbox, 'GET', `/sandbox/v1/payments?cursor=${next_cursor}&offset=2`);
    expectEnvelope(both, 400);
    expect(both.body.description).toContain('not both');
  });

  it('says so when the payment a cursor names was erased by a reset', async () => {
    for (let i = 0; i < 3; i++) await createPayment(each.sandbox);
    const { next_cursor } = await page(each.sandbox, 'limit=1');
    expectEnvelope(await call(each.sandbox, 'POST', '/sandbox/v1/reset', { body: {} }), 200);
    const answer = await call(each.sandbox, 'GET', `/sandbox/v1/payments?cursor=${next_cursor}`);
    expectEnvelope(answer, 400);
    expect(answer.body.description).toContain('no longer has');
  });
});

describe('the contract', () => {
  it('documents cursor, search and next_cursor in /openapi.json', async () => {
    const doc = (await call(each.sandbox, 'GET', '/openapi.json')).body as {
      paths: Record<string, { get: { parameters: { name: string }[]; responses: Record<string, { content: Record<string, { schema: unknown }> }> } }>;
    };
    const list = doc.paths['/sandbox/v1/payments']!.get;
    expect(list.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['cursor', 'search', 'limit', 'offset', 'status', 'merchant_ref_no']));
    expect(JSON.stringify(list.responses['200'])).toContain('next_cursor');
  });
});

describe('10,000 payments', () => {
  it('answers the first page, a deep cursor page and a search in at most 200 ms of server time', { timeout: 60_000 }, async () => {
    const sandbox = await memorySandbox();
    try {
      const store = sandbox.services.store;
      const now = Date.now();
      for (let i = 0; i < 10_000; i++) {
        const n = String(i).padStart(5, '0');
        await store.insertPayment(
          newPayment({ id: `pay_bulk${n}`, token: `ptok_bulk${n}`, code: `BULK${n}`, payeeId: DEMO_PAYEE, merchantRefNo: `bulk-${n}`, productType: 'QR_DYNAMIC', currency: 'SGD', amountMinor: 1050, now: now + i, ttlMs: 86_400_000 }),
        );
      }
      const first = await page(sandbox, 'limit=50');
      expect(first.total).toBe(10_000);
      let cursor = first.next_cursor!;
      for (let i = 0; i < 100; i++) cursor = (await page(sandbox, `limit=50&cursor=${cursor}`)).next_cursor!;
      // The best of five runs: the server's own time, in process (no sockets, no browser).
      const serverMs = async (query: string) => {
        let best = Infinity;
        for (let i = 0; i < 5; i++) {
          const t = performance.now();
          await page(sandbox, query);
          best = Math.min(best, performance.now() - t);
        }
        return best;
      };
      expect(await serverMs('limit=50')).toBeLessThanOrEqual(200);
      expect(await serverMs(`limit=50&cursor=${cursor}`)).toBeLessThanOrEqual(200);
      expect(await serverMs('limit=50&search=bulk-0999')).toBeLessThanOrEqual(200);
      expect(await serverMs('limit=50&status=A')).toBeLessThanOrEqual(200);
      expect((await page(sandbox, `limit=50&cursor=${cursor}`)).payments[0]!.merchant_ref_no).toBe('bulk-04949');
    } finally {
      await sandbox.close();
    }
  });
});


describe('GET /sandbox/v1/payments/{id}: the actions its state allows', () => {
  const offered = async (id: string) => {
    const answer = await call(each.sandbox, 'GET', `/sandbox/v1/payments/${id}`);
    expectEnvelope(answer, 200);
    const actions = answer.body.actions as { action: string; allowed: boolean; refusal: string | null }[];
    return { allowed: actions.filter((a) => a.allowed).map((a) => a.action), refused: Object.fromEntries(actions.filter((a) => !a.allowed).map((a) => [a.action, a.refusal])) };
  };

  it('offers what the transition table allows, and for the rest the 402 the API would answer', async () => {
    const { payment_id } = await createPayment(each.sandbox);
    const open = await offered(payment_id);
    expect(open.allowed).toEqual(['pickup', 'pay', 'fail', 'expire', 'cancel']);
    const voidAnswer = await call(each.sandbox, 'POST', `/openapi/v1/payments/payment/${payment_id}/void`, { body: { reason: 'try' } });
    expectEnvelope(voidAnswer, 402);
    expect(open.refused.void).toBe(voidAnswer.body.description);

    await control(each.sandbox, payment_id, 'pay');
    expect((await offered(payment_id)).allowed).toEqual(['settle', 'void']);
    await control(each.sandbox, payment_id, 'settle');
    const settled = await offered(payment_id);
    expect(settled.allowed).toEqual([]);
    expect(settled.refused.void).toContain('already settled');
  });
});
