/**
 * SPEC 19, one `serve` process: on SIGTERM or SIGINT /readyz answers 503 at once while the instance
 * serves on for SANDBOX_DRAIN_DELAY_MS, then it stops accepting and exits 0; a bad
 * SANDBOX_DRAIN_DELAY_MS is refused at start (exit 2, nothing written).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_KEY, createBody } from '../helpers.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { serversPerTest } from '../support/processes.js';
import { httpRequest } from '../support/raw-http.js';

const servers = serversPerTest();
afterAll(removeTempDirs);

const headers = { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' };

describe.each(['SIGTERM', 'SIGINT'] as const)('%s with SANDBOX_DRAIN_DELAY_MS=1500', (signal) => {
  it('answers /readyz 503 (draining) at once, serves creates and reads through the delay with Connection: close, then refuses connections and exits 0', async () => {
    const dataFile = path.join(tempDir(), 'sandbox.json');
    const server = await servers.start(dataFile, { SANDBOX_DRAIN_DELAY_MS: '1500' });
    const before = await fetch(`${server.url}/readyz`);
    expect(before.status).toBe(200);

    const signalledAt = Date.now();
    server.child.kill(signal);
    await new Promise((r) => setTimeout(r, 200));
    const ready = await httpRequest(`${server.url}/readyz`, 'GET', {}, undefined, false);
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({ reason: 'draining', description: `Not ready: this instance is draining (${signal}); it still answers what it is sent, but a balancer should send new requests to another instance.` });
    expect((await fetch(`${server.url}/livez`)).status).toBe(200);
    const created = await httpRequest(`${server.url}/openapi/v1/payments/payment`, 'POST', headers, JSON.stringify(createBody({ merchant_ref_no: `during-${signal}` })), false);
    expect([created.status, created.headers.connection]).toEqual([200, 'close']);
    const id = (JSON.parse(created.body) as { payment_id: string }).payment_id;
    const read = await httpRequest(`${server.url}/openapi/v1/payments/payment/${id}`, 'GET', headers, undefined, false);
    expect([read.status, read.headers.connection]).toEqual([200, 'close']);
    expect(Date.now() - signalledAt).toBeLessThan(1500);

    const { code } = await server.exited;
    expect(code, server.output()).toBe(0);
    expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(1500);
    expect(server.output()).toContain(`${signal}: draining: /readyz answers 503; still serving for 1.5 s (SANDBOX_DRAIN_DELAY_MS) so a balancer takes this instance out first`);
    expect(server.output()).toContain(`${signal}: finishing in-flight requests (up to 10 s) and writing the store...`);
    await expect(fetch(`${server.url}/livez`)).rejects.toThrow();

    // The create served during the delay was kept.
    const again = await servers.start(dataFile);
    const kept = await fetch(`${again.url}/openapi/v1/payments/payment/${id}`, { headers });
    expect(kept.status).toBe(200);
  }, 30_000);
});

describe('a bad SANDBOX_DRAIN_DELAY_MS', () => {
  it.each(['soon', '-1', '2.5', '600001'])('%s is refused at start by name, exit 2, nothing written', async (value) => {
    const dataFile = path.join(tempDir(), 'sandbox.json');
    const start = servers.start(dataFile, { SANDBOX_DRAIN_DELAY_MS: value });
    await expect(start).rejects.toThrow(`SANDBOX_DRAIN_DELAY_MS must be a whole number of milliseconds from 0 to 600000 (how long a stopping instance keeps serving while a balancer takes it out; 0 stops at once), got ${value}`);
    await expect(start).rejects.toThrow('exited (code 2');
    expect(existsSync(dataFile)).toBe(false);
  });
});
