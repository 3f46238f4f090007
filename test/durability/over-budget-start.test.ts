/**
 * A store that holds more than the sandbox's budget still starts (SPEC 18): it refuses the creates
 * of the merchant over its fair share with 402 and serves what it holds, restart after restart,
 * never a crash loop; a newcomer still enrols and creates within its share (SPEC 26). Real `serve`
 * processes on dist/ (run `npm run build` first).
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../support/files.js';
import { serversPerTest } from '../support/processes.js';
import type { ServerProcess } from '../support/processes.js';

afterAll(removeTempDirs);

const ADVERSARIAL = `{"a":[${Array(2720).fill('{}').join(',')}]}`;

async function post(server: ServerProcess, route: string, body: string, key?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { 'service-api-key': key } : {}) }, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function createBody(payee: string, ref: string): string {
  return `{"payee":"${payee}","product_type":"QR_DYNAMIC","merchant_ref_no":"${ref}","amount":10.5,"metadata":${ADVERSARIAL}}`;
}

describe('starting on a store over the budget', () => {
  const servers = serversPerTest();

  it('starts, serves what it holds, refuses creates past the fair share with 402, takes a newcomer, and does so again after a restart', async () => {
    const dataFile = path.join(tempDir(), 'sandbox.json');
    const filling = await servers.start(dataFile, { SANDBOX_LOG: 'off' });
    const enrolled = await post(filling, '/sandbox/v1/merchants', '{"name":"Big Shop"}');
    const key = enrolled.body.api_key as string;
    const payee = enrolled.body.payee_id as string;
    // ~150 x 17 KB (payment and journal entry): past a 1 MB budget.
    for (let i = 0; i < 150; i++) expect((await post(filling, '/openapi/v1/payments/payment', createBody(payee, `fill-${i}`), key)).status).toBe(200);
    filling.child.kill('SIGKILL');
    await filling.exited;

    for (const round of [1, 2]) {
      const small = await servers.start(dataFile, { SANDBOX_LOG: 'off', SANDBOX_STORAGE_MB: '1' });
      expect((await fetch(`${small.url}/healthz`)).status).toBe(200);
      const list = await fetch(`${small.url}/sandbox/v1/payments?limit=1`, { headers: { 'service-api-key': key } });
      expect(list.status).toBe(200);
      expect(((await list.json()) as { total: number }).total).toBe(150);
      const create = await post(small, '/openapi/v1/payments/payment', createBody(payee, `late-${round}`), key);
      expect(create.status).toBe(402);
      expect(create.body.description).toMatch(/^This sandbox is full/);
      const enrol = await post(small, '/sandbox/v1/merchants', '{}');
      expect(enrol.status).toBe(200);
      const newcomer = await post(small, '/openapi/v1/payments/payment', `{"payee":"${enrol.body.payee_id}","product_type":"QR_DYNAMIC","merchant_ref_no":"new-${round}","amount":10.5}`, enrol.body.api_key as string);
      expect(newcomer.status).toBe(200);
      const own = (await (await fetch(`${small.url}/sandbox/v1/merchant`, { headers: { 'service-api-key': key } })).json()) as { storage: { used_bytes: number; quota_bytes: number } };
      expect(own.storage.used_bytes).toBeGreaterThan(1024 * 1024);
      // Still up after it answered: SIGKILL and start again on the same data.
      expect(small.child.exitCode).toBeNull();
      small.child.kill('SIGKILL');
      await small.exited;
    }
  }, 60_000);
});
