/**
 * /healthz of a real server process on a real disk that fills up or turns read-only (SPEC 15):
 * 503 saying what is wrong while the store cannot be written, 200 again once it can, and
 * creates that fail cleanly (a 503 envelope, nothing kept) while the disk is full, without a restart. The disk is a
 * 2 MB tmpfs, so these need root; they are skipped otherwise (CI runs as root).
 */
import { unlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_KEY, createBody } from '../support/http.js';
import { killQuietly, startServer } from '../support/processes.js';
import type { ServerProcess } from '../support/processes.js';
import { IS_ROOT, NOT_ROOT_REASON, fill, makeReadOnly, makeWritable, mountTmpfs, unmountAll } from '../support/tmpfs.js';

const headers = { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' };

interface Health {
  readonly status: number;
  readonly body: { code: number; description: string; store: string };
}

async function health(server: ServerProcess): Promise<Health> {
  const response = await fetch(`${server.url}/healthz`);
  return { status: response.status, body: (await response.json()) as Health['body'] };
}

/** Polls /healthz until it answers `status` (a probe's answer stands for up to a second). */
async function healthUntil(server: ServerProcess, status: number): Promise<Health> {
  let last: Health | undefined;
  for (let i = 0; i < 50; i++) {
    last = await health(server);
    if (last.status === status) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`/healthz did not answer ${status} within 5 s; last: ${JSON.stringify(last)}`);
}

async function create(server: ServerProcess, ref: string): Promise<{ status: number; text: string; body: any }> {
  const response = await fetch(`${server.url}/openapi/v1/payments/payment`, { method: 'POST', headers, body: JSON.stringify(createBody({ merchant_ref_no: ref })) });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) };
}

async function byRef(server: ServerProcess, ref: string): Promise<number> {
  const response = await fetch(`${server.url}/sandbox/v1/payments?merchant_ref_no=${ref}`, { headers });
  return ((await response.json()) as { total: number }).total;
}

describe.skipIf(!IS_ROOT)(`/healthz of a real server on a real disk (${NOT_ROOT_REASON})`, () => {
  const mounts: string[] = [];
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    // The servers first: a mount with files held open cannot be taken off.
    for (const s of servers) {
      killQuietly(s);
      await s.exited;
    }
    for (const dir of mounts) unmountAll(dir);
  });

  async function serveOnTmpfs(): Promise<{ dir: string; dataFile: string; server: ServerProcess }> {
    const dir = mountTmpfs('2m');
    mounts.push(dir);
    const dataFile = path.join(dir, 'sandbox.json');
    const server = await startServer(dataFile, { SANDBOX_LOG: 'off' });
    servers.push(server);
    return { dir, dataFile, server };
  }

  it('a full disk: 503 saying so, creates refused with an envelope and nothing kept; 200 and creates again once space is freed', async () => {
    const { dir, dataFile, server } = await serveOnTmpfs();
    expect(await health(server)).toEqual({ status: 200, body: { code: 200, description: 'ok: the file store can be read and written.', store: 'file' } });

    const earlier = await create(server, 'before-full');
    expect(earlier.status).toBe(200);
    const filler = fill(dir);
    const full = await healthUntil(server, 503);
    expect(full.body).toMatchObject({ code: 503, store: 'file' });
    expect(full.body.description).toBe(
      `Not ready: the data directory ${dir} is full (ENOSPC): no change can be written to ${dataFile} until space is freed there. ` +
        'Changes may be refused (503, nothing kept) until it is fixed; reads are still answered, from memory.',
    );

    // The log's last block may still take a create or two; then each is refused.
    const acknowledged: string[] = [];
    let refused: { ref: string; answer: Awaited<ReturnType<typeof create>> } | undefined;
    for (let i = 0; i < 50 && !refused; i++) {
      const answer = await create(server, `full-${i}`);
      if (answer.status === 200) acknowledged.push(answer.body.payment_id);
      else refused = { ref: `full-${i}`, answer };
    }
    expect(refused, 'a create was refused on the full disk').toBeDefined();
    const { answer } = refused!;
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ code: 503, description: 'The sandbox could not write its data file (ENOSPC): nothing was changed. Free disk space or check the data directory, then retry.' });
    expect(answer.text).not.toMatch(/\bat .*\(|\.js:\d+|node:|Error:/);
    expect(await byRef(server, refused!.ref)).toBe(0);
    expect((await health(server)).status).toBe(503);
    // Payments acknowledged before stay readable while the disk is full.
    for (const id of [earlier.body.payment_id, ...acknowledged]) expect((await fetch(`${server.url}/openapi/v1/payments/payment/${id}`, { headers })).status).toBe(200);

    unlinkSync(filler);
    expect(await healthUntil(server, 200)).toMatchObject({ body: { code: 200 } });
    expect(await byRef(server, refused!.ref)).toBe(0);
    const again = await create(server, refused!.ref);
    expect(again.status, again.text).toBe(200);

    // And a restart finds every acknowledged create, and the refused one only as made again.
    server.child.kill('SIGKILL');
    await server.exited;
    const restarted = await startServer(dataFile, { SANDBOX_LOG: 'off' });
    servers.push(restarted);
    for (const id of acknowledged) {
      expect((await fetch(`${restarted.url}/openapi/v1/payments/payment/${id}`, { headers })).status).toBe(200);
    }
    expect(await byRef(restarted, refused!.ref)).toBe(1);
    expect((await health(restarted)).status).toBe(200);
  });

  it('a read-only data directory: 503 naming it read-only; 200 once it is read-write again', async () => {
    const { dir, dataFile, server } = await serveOnTmpfs();
    expect((await health(server)).status).toBe(200);

    makeReadOnly(dir);
    try {
      const readOnly = await healthUntil(server, 503);
      expect(readOnly.body.description).toBe(
        `Not ready: the data directory ${dir} is read-only (EROFS): no change can be written to ${dataFile} until it is mounted read-write. ` +
          'Changes may be refused (503, nothing kept) until it is fixed; reads are still answered, from memory.',
      );
    } finally {
      makeWritable(dir);
    }
    expect((await healthUntil(server, 200)).body.code).toBe(200);
    expect((await create(server, 'after-ro')).status).toBe(200);
  });
});
