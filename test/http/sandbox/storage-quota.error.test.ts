/**
 * Storage counted in bytes over HTTP (SPEC 18, 26): past its quota a merchant's creates answer 402
 * naming the quota, the usage and what frees space; once the sandbox's budget is reached, creates
 * of a merchant over its fair share answer 402 naming it, while one under it still creates and a
 * newcomer still enrols; nothing changes on a refusal, and the journal and status reads go on.
 * In memory, or on PostgreSQL with SANDBOX_TEST_STORE=postgres.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { createBody, jsonRequest, memorySandbox, uniqueRef } from '../../helpers.js';
import { until } from '../../support/until.js';

const KIB = 1024;
/** About 7 KiB of metadata: inside the 8 KiB limit. */
const METADATA = { note: 'm'.repeat(7 * KIB) };

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function start(merchantBytes: number, sandboxBytes: number): Promise<Sandbox> {
  sandbox = await memorySandbox({ config: { storage: { merchantBytes, sandboxBytes } } });
  return sandbox;
}

function as(key: string, method: string, path: string, body?: unknown): Request {
  return jsonRequest(method, path, body, { 'Service-Api-Key': key });
}

/** Creates payments with 7 KiB of metadata until one is refused (at most 60); answers the refusal, its merchant_ref_no and how many went in. */
async function fillUp(s: Sandbox, key: string, payee: string, fetchIt: (r: Request) => Promise<Response> = (r) => s.fetch(r)) {
  for (let created = 0; created < 60; created++) {
    const ref = uniqueRef('fill');
    const res = await fetchIt(as(key, 'POST', '/openapi/v1/payments/payment', createBody({ payee, merchant_ref_no: ref, metadata: METADATA })));
    if (res.status !== 200) return { res, body: (await res.json()) as { code: number; description: string }, created, ref };
  }
  throw new Error('60 creates of 7 KiB each were all accepted');
}

async function paymentsOf(s: Sandbox, key: string): Promise<number> {
  return ((await (await s.fetch(as(key, 'GET', '/sandbox/v1/payments'))).json()) as { total: number }).total;
}

interface Storage {
  used_bytes: number;
  quota_bytes: number;
  fair_share_bytes: number;
  allowance_bytes: number;
}

async function storageOf(s: Sandbox, key: string): Promise<Storage> {
  return ((await (await s.fetch(as(key, 'GET', '/sandbox/v1/merchant'))).json()) as { storage: Storage }).storage;
}

describe('the merchant storage quota', () => {
  it('past it, a create answers 402 naming the quota, the usage and what frees space, and stores nothing (through a real server)', async () => {
    const s = await start(64 * KIB, 1024 * KIB * KIB);
    const m = await s.control.enroll({ name: 'Full Shop' });
    const server = await s.listen();
    const overHttp = (r: Request) => fetch(new URL(new URL(r.url).pathname + new URL(r.url).search, server.url), { method: r.method, headers: r.headers, body: r.body, duplex: 'half' } as RequestInit);
    const { res, body, created, ref } = await fillUp(s, m.apiKey, m.payeeId, overHttp);
    // Each create keeps its payment and a journal entry of its request and answer, both near 7 KiB.
    expect(created).toBeGreaterThanOrEqual(2);
    expect(res.status).toBe(402);
    expect(body.code).toBe(402);
    expect(body.description).toMatch(/^This merchant's stored records take \d+\.\d\d MB \(\d+ bytes\) of its storage quota of 0\.06 MB \(65536 bytes\) \(SANDBOX_MERCHANT_STORAGE_MB\)/);
    for (const freer of ['POST /sandbox/v1/reset', 'SANDBOX_RETENTION_DAYS', 'DELETE /sandbox/v1/merchant']) expect(body.description).toContain(freer);
    const usedSaid = Number(/\((\d+) bytes\) of its/.exec(body.description)![1]);
    // The payment (over 7 KiB) did not fit: the records took more than the quota less 8 KiB, and not more than
    // the quota and the newest journal entries (the newest is kept whatever it costs). PostgreSQL trims the others in
    // the background, as docs/limits.md says: a few writes behind on a busy machine (126 KiB seen in CI).
    expect(usedSaid).toBeGreaterThan(56 * KIB);
    expect(usedSaid).toBeLessThanOrEqual(s.services.store.kind === 'postgres' ? 144 * KIB : 96 * KIB);

    // Nothing of the refused create is kept: the same count, and its merchant_ref_no is free.
    expect(await paymentsOf(s, m.apiKey)).toBe(created);
    const byRef = (await (await s.fetch(as(m.apiKey, 'GET', `/sandbox/v1/payments?merchant_ref_no=${ref}`))).json()) as { total: number };
    expect(byRef.total).toBe(0);
    await server.close();
  });

  it('a merchant over its quota still reads its payments and its journal; a reset frees the space', async () => {
    const s = await start(64 * KIB, 1024 * KIB * KIB);
    const m = await s.control.enroll();
    const first = await s.fetch(as(m.apiKey, 'POST', '/openapi/v1/payments/payment', createBody({ payee: m.payeeId, metadata: METADATA })));
    const { payment_id: id } = (await first.json()) as { payment_id: string };
    await fillUp(s, m.apiKey, m.payeeId);
    expect((await s.fetch(as(m.apiKey, 'GET', `/openapi/v1/payments/payment/${id}`))).status).toBe(200);
    const journal = await s.fetch(as(m.apiKey, 'GET', '/sandbox/v1/requests?limit=5'));
    expect(journal.status).toBe(200);
    // Its journal keeps its newest within the quota (the payments take nearly all of it): at least the newest.
    expect(((await journal.json()) as { requests: { status: number }[] }).requests.length).toBeGreaterThanOrEqual(1);
    const { used_bytes: full } = await storageOf(s, m.apiKey);
    // The journal keeps its newest within the quota: full, never over but by its newest entries (see above).
    expect(full).toBeGreaterThan(48 * KIB);
    expect(full).toBeLessThanOrEqual(96 * KIB);
    expect((await s.fetch(as(m.apiKey, 'POST', '/sandbox/v1/reset'))).status).toBe(200);
    expect((await storageOf(s, m.apiKey)).used_bytes).toBeLessThan(full / 4);
    expect((await s.fetch(as(m.apiKey, 'POST', '/openapi/v1/payments/payment', createBody({ payee: m.payeeId, metadata: METADATA })))).status).toBe(200);
  });

  it("another merchant's creates go on while one is over its quota", async () => {
    const s = await start(64 * KIB, 1024 * KIB * KIB);
    const full = await s.control.enroll();
    const other = await s.control.enroll();
    await fillUp(s, full.apiKey, full.payeeId);
    expect((await s.fetch(as(other.apiKey, 'POST', '/openapi/v1/payments/payment', createBody({ payee: other.payeeId, metadata: METADATA })))).status).toBe(200);
  });
});

describe('the sandbox storage budget, shared fairly', () => {
  it('once it is reached, the merchant over its fair share is refused with 402 naming it and changes nothing; one under it still creates, and a newcomer still enrols', async () => {
    const s = await start(1024 * KIB * KIB, 96 * KIB);
    const big = await s.control.enroll();
    const small = await s.control.enroll();
    const { body, created } = await fillUp(s, big.apiKey, big.payeeId);
    expect(created).toBeGreaterThanOrEqual(2);
    expect(body.code).toBe(402);
    expect(body.description).toMatch(/^This sandbox is full: its stored records reached its storage budget \(SANDBOX_STORAGE_MB\), so each merchant keeps at most its fair share, \d+\.\d\d MB \(\d+ bytes\) now \(the budget divided among the merchants holding data\)\. This merchant's stored records take /);
    for (const freer of ['POST /sandbox/v1/reset', 'DELETE /sandbox/v1/merchant']) expect(body.description).toContain(freer);
    expect(await paymentsOf(s, big.apiKey)).toBe(created);

    // The small merchant holds nothing: under its share, it is not refused because the big one filled the sandbox.
    const res = await s.fetch(as(small.apiKey, 'POST', '/openapi/v1/payments/payment', createBody({ payee: small.payeeId })));
    expect(res.status).toBe(200);
    const enrol = await s.fetch(new Request('http://sandbox.test/sandbox/v1/merchants', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"name":"Late Shop"}' }));
    expect(enrol.status).toBe(200);
    const late = (await enrol.json()) as { api_key: string; payee_id: string };
    expect((await s.fetch(as(late.api_key, 'POST', '/openapi/v1/payments/payment', createBody({ payee: late.payee_id })))).status).toBe(200);
    // The space came from the merchant over its share (its journal trimmed): the sandbox holds its budget, at most 10 % over,
    // at once in memory, and on PostgreSQL once its background trims ran (which a busy machine may delay).
    const within = async () => ((await s.services.store.storageUsage(small.payeeId)).sandboxBytes <= 96 * KIB * 1.1 ? true : undefined);
    if (s.services.store.kind === 'postgres') {
      // Payments are never trimmed: on a busy machine the big merchant's creates can outrun its background trims and the
      // few-seconds-old sums, and keep more payments than its share; then the sweep has given back all it may (its journal
      // down to the newest entry), which docs/limits.md allows.
      const swept = async () => ((await s.services.store.journal.list(big.payeeId, { limit: 2 })).length <= 1 ? true : undefined);
      await until(async () => (await within()) ?? (await swept()), 'the sandbox to hold its budget, at most 10 % over, or the merchant over its share swept', 15_000);
    } else {
      expect(await within()).toBe(true);
    }
    const own = await storageOf(s, small.apiKey);
    expect(own.fair_share_bytes).toBeLessThanOrEqual((96 * KIB) / 3);
    expect([own.fair_share_bytes, 1024 * KIB * KIB]).toContain(own.allowance_bytes);
  });
});

describe('GET /sandbox/v1/merchant storage', () => {
  it("shows the merchant's own used bytes and its quota, and the used bytes follow its creates", async () => {
    const s = await start(64 * KIB, 1024 * KIB * KIB);
    const m = await s.control.enroll();
    const empty = await storageOf(s, m.apiKey);
    expect(empty).toEqual({ used_bytes: expect.any(Number), quota_bytes: 64 * KIB, fair_share_bytes: expect.any(Number), allowance_bytes: 64 * KIB });
    expect((await s.fetch(as(m.apiKey, 'POST', '/openapi/v1/payments/payment', createBody({ payee: m.payeeId, metadata: METADATA })))).status).toBe(200);
    expect((await storageOf(s, m.apiKey)).used_bytes).toBeGreaterThan(empty.used_bytes + 7 * KIB);
  });

  it('is in the contract document', async () => {
    const s = await start(64 * KIB, 1024 * KIB * KIB);
    const doc = (await (await s.fetch(new Request('http://sandbox.test/openapi.json'))).json()) as Record<string, any>;
    const schema = JSON.stringify(doc.paths['/sandbox/v1/merchant'].get.responses['200']);
    expect(schema).toContain('used_bytes');
    expect(schema).toContain('quota_bytes');
  });
});
