/**
 * SPEC 16: "What the report needs is kept beyond the journal's bound." The readiness evidence
 * outlives the journal's 500 entries, a polling loop does not push a create out of it, clearing
 * the journal keeps it, a reset erases it, and on the file store a restart leaves the report as
 * it was. (SANDBOX_TEST_STORE=postgres runs the same on the shared store.)
 */
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createSandbox } from '../../../src/index.js';
import type { EnrolledMerchant, Sandbox } from '../../../src/index.js';
import { memorySandbox } from '../../helpers.js';
import { removeTempDirs, tempDir } from '../../support/files.js';
import { call } from '../../support/http.js';

afterAll(removeTempDirs);
let open: Sandbox[] = [];
afterEach(async () => {
  for (const s of open) await s.close();
  open = [];
});

async function started(make: () => Promise<Sandbox>): Promise<Sandbox> {
  const sandbox = await make();
  open.push(sandbox);
  return sandbox;
}

let refs = 0;
const as = (sandbox: Sandbox, m: EnrolledMerchant, p: string, method = 'GET', body?: unknown) => call(sandbox, method, p, { key: m.apiKey, ...(body === undefined ? {} : { body }) });

async function createAndPoll(sandbox: Sandbox, m: EnrolledMerchant, polls = 1): Promise<string> {
  const created = await as(sandbox, m, '/openapi/v1/payments/payment', 'POST', { payee: m.payeeId, product_type: 'QR_DYNAMIC', merchant_ref_no: `bound-${++refs}`, amount: 12.5 });
  expect(created.status).toBe(200);
  const id = created.body.payment_id as string;
  // In bursts of 20: the order within a burst does not matter to a loop of identical reads.
  for (let i = 0; i < polls; i += 20) await Promise.all(Array.from({ length: Math.min(20, polls - i) }, () => as(sandbox, m, `/openapi/v1/payments/payment/${id}`)));
  return id;
}

async function checks(sandbox: Sandbox, m: EnrolledMerchant): Promise<Record<string, { status: string; evidence: string[] }>> {
  const answer = await as(sandbox, m, '/sandbox/v1/readiness');
  expect(answer.status).toBe(200);
  return Object.fromEntries((answer.body.checks as { id: string; status: string; evidence: string[] }[]).map((c) => [c.id, { status: c.status, evidence: c.evidence }]));
}

async function journaledCreates(sandbox: Sandbox, m: EnrolledMerchant): Promise<number> {
  const answer = await as(sandbox, m, '/sandbox/v1/requests?method=POST&limit=500');
  expect(answer.status).toBe(200);
  return (answer.body.requests as { path: string }[]).filter((r) => r.path === '/openapi/v1/payments/payment').length;
}

describe('the readiness evidence outlives the journal', () => {
  it('600 other requests after a create and a poll push the create out of the journal, not out of the report', async () => {
    const sandbox = await started(() => memorySandbox());
    const m = await sandbox.control.enroll({ name: 'Bound Shop' });
    await createAndPoll(sandbox, m);
    expect(await journaledCreates(sandbox, m)).toBe(1);
    for (let i = 0; i < 600; i += 20) await Promise.all(Array.from({ length: 20 }, () => as(sandbox, m, '/sandbox/v1/clock')));

    expect(await journaledCreates(sandbox, m)).toBe(0);
    const report = await checks(sandbox, m);
    expect(report.create!.status).toBe('pass');
    expect(report['poll-status']!.status).toBe('pass');
  }, 60_000);

  it('a polling loop of 3,000 status reads does not push the create out (the cap is 2,000 entries)', async () => {
    const sandbox = await started(() => memorySandbox());
    const m = await sandbox.control.enroll({ name: 'Polling Shop' });
    await createAndPoll(sandbox, m, 3_000);
    const report = await checks(sandbox, m);
    expect(report.create!.status).toBe('pass');
    expect(report['poll-status']!.status).toBe('pass');
    expect((await sandbox.services.store.readiness.list(m.payeeId)).length).toBeLessThan(10);
  }, 120_000);

  it('clearing the journal keeps the evidence; a reset erases it', async () => {
    const sandbox = await started(() => memorySandbox());
    const m = await sandbox.control.enroll({ name: 'Clearing Shop' });
    await createAndPoll(sandbox, m);
    expect((await as(sandbox, m, '/sandbox/v1/requests', 'DELETE')).status).toBe(200);
    expect(await journaledCreates(sandbox, m)).toBe(0);
    expect((await checks(sandbox, m)).create!.status).toBe('pass');

    expect((await as(sandbox, m, '/sandbox/v1/reset', 'POST')).status).toBe(200);
    const report = await checks(sandbox, m);
    expect(report.create!.status).toBe('not_tried');
    expect(report['poll-status']!.status).toBe('not_tried');
  });
});

describe('on the file store, the report is the same after a restart', () => {
  it('closed and reopened after a create, a poll, a lost create recovered by its merchant_ref_no and 600 other requests', async () => {
    const dataFile = path.join(tempDir('payreq-readiness-'), 's.json');
    const first = await createSandbox({ store: 'file', dataFile, scheduler: false });
    const m = await first.control.enroll({ name: 'Restart Shop' });
    await createAndPoll(first, m);
    const lost = await first.fetch(new Request('http://sandbox/openapi/v1/payments/payment', {
      method: 'POST',
      headers: { 'Service-Api-Key': m.apiKey, 'Content-Type': 'application/json', 'Sandbox-Fault': 'error-after-commit=500' },
      body: JSON.stringify({ payee: m.payeeId, product_type: 'QR_DYNAMIC', merchant_ref_no: 'lost-1', amount: 30 }),
    }));
    expect(lost.status).toBe(500);
    const again = await as(first, m, '/openapi/v1/payments/payment', 'POST', { payee: m.payeeId, product_type: 'QR_DYNAMIC', merchant_ref_no: 'lost-1', amount: 30 });
    expect(again.status).toBe(402);
    for (let i = 0; i < 600; i += 20) await Promise.all(Array.from({ length: 20 }, () => as(first, m, '/sandbox/v1/clock')));
    const before = await checks(first, m);
    expect(before.create!.status).toBe('pass');
    expect(before['interrupted-create']!.status).toBe('pass');
    await first.close();

    const second = await started(() => createSandbox({ store: 'file', dataFile, scheduler: false }));
    expect(await journaledCreates(second, m)).toBe(0);
    expect(await checks(second, m)).toEqual(before);
  }, 60_000);
});
