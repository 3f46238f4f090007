import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import { pruneOldPayments } from '../../src/services/index.js';
import { createBody, jsonRequest } from '../helpers.js';
import { storedPayments } from '../support/payment-counts.js';

const DAY = 86_400_000;

describe('pruning old payments by age', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'payreq-prune-'));
  const dataFile = path.join(dir, 'sandbox.json');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('deletes final payments older than the retention, keeps live and recent ones, and the deletion survives a restart', async () => {
    let now = Date.UTC(2026, 0, 1);
    const clock = () => now;
    const sandbox = await createSandbox({ store: 'file', dataFile, clock, scheduler: false, config: { retentionDays: 30 } });
    const ids: Record<string, string> = {};
    const create = async (name: string) => {
      const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody({ merchant_ref_no: name })));
      ids[name] = ((await res.json()) as { payment_id: string }).payment_id;
    };
    const cancel = async (name: string) => {
      expect((await sandbox.fetch(jsonRequest('POST', `/openapi/v1/payments/payment/${ids[name]}/cancel`, { reason: 'x' }))).status).toBe(200);
    };
    await create('oldFinal');
    await cancel('oldFinal');
    // Stays P in the store: nobody reads it and the scheduler is off, so it is still live there.
    await create('oldLive');
    now += 40 * DAY;
    await create('recentFinal');
    await cancel('recentFinal');
    const before = await storedPayments(sandbox.services.store, 'DEMO-MERCHANT-1');
    const pruned = await pruneOldPayments(sandbox.services);
    expect(pruned).toBe(1);
    const status = async (id: string) => (await sandbox.fetch(jsonRequest('GET', `/openapi/v1/payments/payment/${id}`))).status;
    expect(await status(ids.oldFinal!)).toBe(404);
    expect(await status(ids.recentFinal!)).toBe(200);
    expect(await status(ids.oldLive!)).toBe(200);
    const after = await storedPayments(sandbox.services.store, 'DEMO-MERCHANT-1');
    expect(after).toBe(before - pruned);
    await sandbox.close();

    const again = await createSandbox({ store: 'file', dataFile, clock, scheduler: false });
    expect(await storedPayments(again.services.store, 'DEMO-MERCHANT-1')).toBe(after);
    expect((await again.fetch(jsonRequest('GET', `/openapi/v1/payments/payment/${ids.oldFinal!}`))).status).toBe(404);
    await again.close();
  });

  it('keeps everything with retention 0 (the default)', async () => {
    let now = Date.now();
    const sandbox = await createSandbox({ store: 'memory', scheduler: false, clock: () => now });
    const created = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody()));
    const id = ((await created.json()) as { payment_id: string }).payment_id;
    await sandbox.fetch(jsonRequest('POST', `/openapi/v1/payments/payment/${id}/cancel`, { reason: 'x' }));
    now += 1000 * DAY;
    expect(await pruneOldPayments(sandbox.services)).toBe(0);
    await sandbox.close();
  });

  it("measures age on each merchant's own sandbox clock", async () => {
    const now = Date.UTC(2026, 0, 1);
    const sandbox = await createSandbox({ store: 'memory', scheduler: false, clock: () => now, config: { retentionDays: 30 } });
    const created = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody()));
    const id = ((await created.json()) as { payment_id: string }).payment_id;
    await sandbox.fetch(jsonRequest('POST', `/openapi/v1/payments/payment/${id}/cancel`, { reason: 'x' }));
    expect(await pruneOldPayments(sandbox.services)).toBe(0);
    // Real time stands still; the merchant's clock moves 31 days on, so its cancelled payment is old.
    await sandbox.control.advanceClock('sk_sandbox_demo_merchant_key', 31 * 86_400);
    expect(await pruneOldPayments(sandbox.services)).toBe(1);
    await sandbox.close();
  });
});
