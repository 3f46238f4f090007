/**
 * Idempotency keys and the readiness evidence survive a crash of a real server process on the
 * file store (SPEC 16): SIGKILL, restart on the same file, and a retry with the same
 * Idempotency-Key gets the first answer again (no second payment), another body under that key
 * is a 400 naming it, and the readiness report is what it was.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../support/files.js';
import { DEMO_KEY, createBody } from '../support/http.js';
import { serversPerTest } from '../support/processes.js';
import type { ServerProcess } from '../support/processes.js';

afterAll(removeTempDirs);
const servers = serversPerTest();
const start = (dataFile: string): Promise<ServerProcess> => servers.start(dataFile);

async function killed(server: ServerProcess): Promise<void> {
  server.child.kill('SIGKILL');
  expect((await server.exited).signal).toBe('SIGKILL');
}

const headers = { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' };

async function send(url: string, method: string, body?: unknown, extra: Record<string, string> = {}) {
  const response = await fetch(url, { method, headers: { ...headers, ...extra }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, replayed: response.headers.get('idempotent-replayed'), text: await response.text() };
}

describe('a real server process killed with SIGKILL', () => {
  it('answers a retry with the same Idempotency-Key with the first answer after a restart, and refuses another body under it', async () => {
    const dataFile = path.join(tempDir('payreq-idem-'), 's.json');
    const first = await start(dataFile);
    const body = createBody({ merchant_ref_no: 'idem-restart-1' });
    const created = await send(`${first.url}/openapi/v1/payments/payment`, 'POST', body, { 'Idempotency-Key': 'order-1-attempt' });
    expect(created.status).toBe(200);
    expect(created.replayed).toBeNull();
    await killed(first);

    const second = await start(dataFile);
    // The same body with its keys in another order is the same request.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const retry = await send(`${second.url}/openapi/v1/payments/payment`, 'POST', reordered, { 'Idempotency-Key': 'order-1-attempt' });
    expect(retry.status).toBe(200);
    expect(retry.replayed).toBe('true');
    expect(retry.text).toBe(created.text);
    const listed = JSON.parse((await send(`${second.url}/sandbox/v1/payments?merchant_ref_no=idem-restart-1`, 'GET')).text) as { payments: unknown[] };
    expect(listed.payments).toHaveLength(1);

    const other = await send(`${second.url}/openapi/v1/payments/payment`, 'POST', { ...body, amount: 99 }, { 'Idempotency-Key': 'order-1-attempt' });
    expect(other.status).toBe(400);
    expect(JSON.parse(other.text).description).toContain('"order-1-attempt"');
  }, 60_000);

  it('keeps the readiness report as it was, beyond the journal bound', async () => {
    const dataFile = path.join(tempDir('payreq-ready-'), 's.json');
    const first = await start(dataFile);
    const created = JSON.parse((await send(`${first.url}/openapi/v1/payments/payment`, 'POST', createBody())).text) as { payment_id: string };
    expect((await send(`${first.url}/openapi/v1/payments/payment/${created.payment_id}`, 'GET')).status).toBe(200);
    for (let i = 0; i < 600; i += 20) await Promise.all(Array.from({ length: 20 }, () => send(`${first.url}/sandbox/v1/clock`, 'GET')));
    const before = JSON.parse((await send(`${first.url}/sandbox/v1/readiness`, 'GET')).text) as { checks: { id: string; status: string }[] };
    expect(before.checks.find((c) => c.id === 'create')!.status).toBe('pass');
    expect(before.checks.find((c) => c.id === 'poll-status')!.status).toBe('pass');
    await killed(first);

    const second = await start(dataFile);
    const after = JSON.parse((await send(`${second.url}/sandbox/v1/readiness`, 'GET')).text) as { checks: unknown[] };
    expect(after.checks).toEqual(before.checks);
  }, 60_000);
});
