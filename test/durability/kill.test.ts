/**
 * A 2xx means the change is written (SPEC 11, 23): kill -9 during a burst of creates, with a
 * snapshot every ~20 KB of log so that kills land around snapshot time too, restart on the same
 * file, and find every acknowledged change; SIGTERM finishes in-flight work, writes the
 * snapshot and exits 0.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../support/files.js';
import { jsonLines, snapshotGeneration } from '../support/json-lines.js';
import { DEMO_KEY, createBody } from '../support/http.js';
import { serversPerTest } from '../support/processes.js';
import type { ServerProcess } from '../support/processes.js';

afterAll(removeTempDirs);
const servers = serversPerTest();
/** A snapshot every ~20 KB of log: many during a burst. */
const start = (dataFile: string): Promise<ServerProcess> => servers.start(dataFile, { SANDBOX_SNAPSHOT_MB: '0.02' });

/** The payments the store's files hold (snapshot, then log; a cut last line of the log aside). */
function storedPayments(dataFile: string): Map<string, { merchantRefNo: string; status: string }> {
  const stored = new Map<string, { merchantRefNo: string; status: string }>();
  const log = readFileSync(`${dataFile}.log`, 'utf8');
  const lines = [...jsonLines(dataFile), ...log.slice(0, log.lastIndexOf('\n')).split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)];
  for (const line of lines) if (line.t === 'payment') { const v = line.v as { id: string; merchantRefNo: string; status: string }; stored.set(v.id, v); }
  return stored;
}

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
    // Killed once snapshots have been written along the burst (each over a few event-loop turns), so kills land around them.
    while (created.length < 200 || snapshotGeneration(dataFile) <= 5) await new Promise((resolve) => setTimeout(resolve, 5));
    first.child.kill('SIGKILL');
    killed = true;
    const exit = await first.exited;
    await Promise.all(workers);
    expect(exit.signal).toBe('SIGKILL');
    expect(created.length).toBeGreaterThanOrEqual(200);
    expect(assigned.length).toBeGreaterThan(0);

    // The acknowledged changes are in the files on disk, not only in the dead process's memory.
    const stored = storedPayments(dataFile);
    for (const id of created) expect(stored.has(id)).toBe(true);
    // Snapshots were written all along the burst (the first at start).
    expect(Number(jsonLines(dataFile)[0]!.generation)).toBeGreaterThan(5);

    const second = await start(dataFile);
    const found = await statuses(second, created);
    const missing = created.filter((id) => found.get(id)?.status !== 200);
    expect(missing).toEqual([]);
    for (const id of assigned) expect(found.get(id)?.paymentStatus).toBe('W');

    const list = (await (await fetch(`${second.url}/sandbox/v1/payments?limit=1`, { headers })).json()) as { total: number };
    expect(list.total).toBeGreaterThanOrEqual(created.length);
    expect(list.total).toBeLessThanOrEqual(created.length + 8);

    // The restarted server keeps writing, and stops cleanly into a snapshot of JSON lines.
    expect((await post(`${second.url}/openapi/v1/payments/payment`, createBody({ merchant_ref_no: 'after-restart' }))).status).toBe(200);
    second.child.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });
    const snapshot = jsonLines(dataFile).filter((l) => l.t === 'payment').map((l) => l.v as { id: string; merchantRefNo: string });
    const inSnapshot = new Set(snapshot.map((p) => p.id));
    for (const id of created) expect(inSnapshot.has(id)).toBe(true);
    expect(snapshot.some((p) => p.merchantRefNo === 'after-restart')).toBe(true);
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
    const snapshot = jsonLines(dataFile);
    expect(snapshot[0]).toMatchObject({ t: 'snapshot', format: 'payreq-sandbox/2' });
    expect(snapshot.filter((l) => l.t === 'payment').map((l) => (l.v as { id: string }).id).sort()).toEqual([...ids, late].sort());
    expect(snapshot.filter((l) => l.t === 'merchant').map((l) => (l.v as { payeeId: string }).payeeId)).toEqual(expect.arrayContaining(['DEMO-MERCHANT-1', 'DEMO-MERCHANT-SIGNED']));
    // Everything is in the snapshot: the log holds its header alone.
    expect(jsonLines(`${dataFile}.log`)).toHaveLength(1);

    const second = await start(dataFile);
    const found = await statuses(second, [...ids, late]);
    for (const [i, id] of ids.entries()) expect(found.get(id)).toEqual({ status: 200, paymentStatus: i % 2 ? 'A' : 'P' });
    expect(found.get(late)?.status).toBe(200);
    second.child.kill('SIGINT');
    expect((await second.exited).code).toBe(0);
  });
});
