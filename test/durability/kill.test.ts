/**
 * A 2xx means the change is written (SPEC 11): kill -9 during a burst of creates, restart on
 * the same file, and find every acknowledged change; SIGTERM finishes in-flight work, writes
 * the lowdb snapshot and exits 0.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/store/file-store.js';
import { removeTempDirs, tempDir, walSegments } from '../support/files.js';
import { DEMO_KEY, createBody } from '../support/http.js';
import { serversPerTest } from '../support/processes.js';
import type { ServerProcess } from '../support/processes.js';

afterAll(removeTempDirs);
const servers = serversPerTest();
const start = (dataFile: string): Promise<ServerProcess> => servers.start(dataFile);

const headers = { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' };

async function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
}

async function statusCode(server: ServerProcess, id: string): Promise<{ status: number; paymentStatus: string }> {
  const response = await fetch(`${server.url}/openapi/v1/payments/payment/${id}`, { headers });
  const body = (await response.json()) as { payment_status: string };
  return { status: response.status, paymentStatus: body.payment_status };
}

/** Checks many ids a few at a time. */
async function statuses(server: ServerProcess, ids: readonly string[]) {
  const out = new Map<string, { status: number; paymentStatus: string }>();
  for (let i = 0; i < ids.length; i += 16) {
    const batch = ids.slice(i, i + 16);
    const results = await Promise.all(batch.map((id) => statusCode(server, id)));
    batch.forEach((id, j) => out.set(id, results[j]!));
  }
  return out;
}

describe('durability of a real server process', () => {
  it('SIGKILL during a burst of creates: every acknowledged create and assign is there after restart', async () => {
    const dataFile = path.join(tempDir('payreq-kill-'), 's.json');
    const first = await start(dataFile);

    const created: string[] = [];
    const assigned: string[] = [];
    let killed = false;
    const worker = async (w: number) => {
      for (let i = 0; !killed; i++) {
        try {
          const response = await post(`${first.url}/openapi/v1/payments/payment`, createBody({ merchant_ref_no: `burst-${w}-${i}` }));
          if (response.status !== 200) throw new Error(`create answered ${response.status}`);
          const { payment_id } = (await response.json()) as { payment_id: string };
          created.push(payment_id);
          if (i % 4 === 0) {
            const assign = await post(`${first.url}/openapi/v1/payments/payment/${payment_id}/assign`, { payer: `payer-${w}-${i}` });
            if (assign.status === 200) assigned.push(payment_id);
          }
        } catch {
          // Refused or reset by the kill: this request's outcome is unknown, and not checked.
          if (killed) return;
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    while (created.length < 200) await new Promise((resolve) => setTimeout(resolve, 5));
    first.child.kill('SIGKILL');
    killed = true;
    const exit = await first.exited;
    await Promise.all(workers);
    expect(exit.signal).toBe('SIGKILL');
    expect(created.length).toBeGreaterThanOrEqual(200);
    expect(assigned.length).toBeGreaterThan(0);

    // The acknowledged changes are in the log files on disk, not only in the dead process's memory.
    const segments = walSegments(dataFile);
    expect(segments.length).toBeGreaterThan(0);
    const log = segments.map((f) => readFileSync(f, 'utf8')).join('');
    for (const id of created) expect(log).toContain(id);
    const lines = log.split('\n').filter(Boolean);
    // Every line but possibly a torn last one is a whole JSON record.
    for (const line of lines.slice(0, -1)) expect(() => JSON.parse(line)).not.toThrow();

    const second = await start(dataFile);
    const found = await statuses(second, created);
    const missing = created.filter((id) => found.get(id)?.status !== 200);
    expect(missing).toEqual([]);
    for (const id of assigned) expect(found.get(id)?.paymentStatus).toBe('W');

    const list = (await (await fetch(`${second.url}/sandbox/v1/payments?limit=1`, { headers })).json()) as { total: number };
    expect(list.total).toBeGreaterThanOrEqual(created.length);
    expect(list.total).toBeLessThanOrEqual(created.length + 8);

    // The restarted server keeps writing, and stops cleanly into a readable lowdb snapshot.
    expect((await post(`${second.url}/openapi/v1/payments/payment`, createBody({ merchant_ref_no: 'after-restart' }))).status).toBe(200);
    second.child.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });
    const snapshot = JSON.parse(readFileSync(dataFile, 'utf8')) as Snapshot;
    const stored = new Set(snapshot.payments.map((p) => p.id));
    for (const id of created) expect(stored.has(id)).toBe(true);
    expect(snapshot.payments.some((p) => p.merchantRefNo === 'after-restart')).toBe(true);
  });

  it('SIGTERM: finishes the in-flight request, writes the snapshot, exits 0, and the data is there after restart', async () => {
    const dataFile = path.join(tempDir('payreq-term-'), 's.json');
    const first = await start(dataFile);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const response = await post(`${first.url}/openapi/v1/payments/payment`, createBody({ merchant_ref_no: `term-${i}`, payer: i % 2 ? 'PAYER_PAYS' : undefined }));
      expect(response.status).toBe(200);
      ids.push(((await response.json()) as { payment_id: string }).payment_id);
    }
    // A create held 1.5 s by a latency fault is in flight when SIGTERM arrives.
    const inFlight = fetch(`${first.url}/openapi/v1/payments/payment`, {
      method: 'POST',
      headers: { ...headers, 'Sandbox-Fault': 'latency=1500' },
      body: JSON.stringify(createBody({ merchant_ref_no: 'in-flight' })),
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    first.child.kill('SIGTERM');
    const response = await inFlight;
    expect(response.status).toBe(200);
    const late = ((await response.json()) as { payment_id: string }).payment_id;
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(first.output()).toContain('SIGTERM');

    expect(existsSync(dataFile)).toBe(true);
    const snapshot = JSON.parse(readFileSync(dataFile, 'utf8')) as Snapshot;
    expect(snapshot.format).toBe('payreq-sandbox/1');
    expect(snapshot.payments.map((p) => p.id).sort()).toEqual([...ids, late].sort());
    expect(snapshot.merchants.map((m) => m.payeeId)).toEqual(expect.arrayContaining(['DEMO-MERCHANT-1', 'DEMO-MERCHANT-SIGNED']));
    // Everything was folded into the snapshot: what is left of the log is empty.
    for (const segment of walSegments(dataFile)) expect(statSync(segment).size).toBe(0);

    const second = await start(dataFile);
    const found = await statuses(second, [...ids, late]);
    for (const [i, id] of ids.entries()) expect(found.get(id)).toEqual({ status: 200, paymentStatus: i % 2 ? 'A' : 'P' });
    expect(found.get(late)?.status).toBe(200);
    second.child.kill('SIGINT');
    expect((await second.exited).code).toBe(0);
  });
});
