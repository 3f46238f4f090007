/**
 * SPEC 15, SIGTERM or SIGINT: stop accepting, let answers in flight finish, write the store
 * out, exit 0. A real `serve` process on a file store is stopped during a burst of creates.
 */
import http from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DEMO_KEY, createBody } from '../helpers.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { killQuietly, startServer } from '../support/processes.js';
import type { ServerProcess } from '../support/processes.js';
import { httpRequest, idleSockets, parseReply } from '../support/raw-http.js';

const started: ServerProcess[] = [];
afterEach(() => {
  for (const s of started.splice(0)) killQuietly(s);
});
afterAll(removeTempDirs);

const headers = { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' };

interface Outcome {
  readonly ref: string;
  readonly status?: number;
  readonly paymentId?: string;
  readonly error?: string;
}

async function createOnce(url: string, ref: string, agent: http.Agent | false): Promise<Outcome> {
  try {
    const sent = await httpRequest(`${url}/openapi/v1/payments/payment`, 'POST', headers, JSON.stringify(createBody({ merchant_ref_no: ref })), agent);
    const body = JSON.parse(sent.body) as { payment_id?: string };
    return { ref, status: sent.status, ...(body.payment_id ? { paymentId: body.payment_id } : {}) };
  } catch (err) {
    return { ref, error: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
  }
}

/** A create whose body is sent in two halves, the second `afterMs` after `start()` is called. */
function slowCreate(port: number, ref: string) {
  const body = JSON.stringify(createBody({ merchant_ref_no: ref }));
  const head = `POST /openapi/v1/payments/payment HTTP/1.1\r\nHost: x\r\nService-Api-Key: ${DEMO_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
  let socket: Socket;
  let received = '';
  const closed = new Promise<void>((resolve) => {
    socket = connect(port, '127.0.0.1', () => socket.write(head + body.slice(0, 20)));
    socket.on('data', (d: Buffer) => (received += d.toString()));
    socket.on('close', () => resolve());
    socket.on('error', () => {});
  });
  return {
    finishAfter: (ms: number) => setTimeout(() => socket.write(body.slice(20)), ms),
    reply: closed.then(() => parseReply(received, true)),
  };
}

async function listAll(url: string): Promise<{ merchant_ref_no: string; payment_id: string; payment_status: string }[]> {
  const all: { merchant_ref_no: string; payment_id: string; payment_status: string }[] = [];
  for (let offset = 0; ; offset += 100) {
    const res = await fetch(`${url}/sandbox/v1/payments?limit=100&offset=${offset}`, { headers });
    expect(res.status).toBe(200);
    const page = (await res.json()) as { total: number; payments: { merchant_ref_no: string; payment_id: string; payment_status: string }[] };
    all.push(...page.payments);
    if (all.length >= page.total || page.payments.length === 0) return all;
  }
}

describe.each(['SIGTERM', 'SIGINT'] as const)('%s during a burst of creates', (signal) => {
  it('answers what it took in, refuses the rest, keeps every answered payment and exits 0', async () => {
    const dataFile = path.join(tempDir(), 'sandbox.json');
    // The minimum body rate off: the stalled upload below stands for any request still in flight at the stop.
    const server = await startServer(dataFile, { SANDBOX_BODY_MIN_BYTES_PER_SECOND: '0' });
    started.push(server);

    // A client that connected and sent nothing, and an upload that needs 6.5 s more to finish.
    const port = Number(new URL(server.url).port);
    const [idle] = await idleSockets(port, 1);
    const idleClosed = new Promise<number>((resolve) => idle!.once('close', () => resolve(Date.now())));
    const slow = slowCreate(port, `slow-${signal}`);
    // Taken in (its headers read and handed to the app) before the burst starts.
    await new Promise((r) => setTimeout(r, 300));

    const outcomes: Promise<Outcome>[] = [];
    let answered = 0;
    const count = (o: Outcome) => {
      if (o.status !== undefined) answered += 1;
      return o;
    };
    // 150 creates on fresh connections, all at once.
    for (let i = 0; i < 150; i++) outcomes.push(createOnce(server.url, `burst-${signal}-${i}`, false).then(count));
    // 20 keep-alive clients, each sending creates one after another on its own connection until one gets no answer.
    const agents = Array.from({ length: 20 }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
    const loops = agents.map(async (agent, a) => {
      const mine: Outcome[] = [];
      for (let n = 0; n < 1000; n++) {
        const o = count(await createOnce(server.url, `keep-${signal}-${a}-${n}`, agent));
        mine.push(o);
        if (o.status === undefined) break;
      }
      return mine;
    });

    // The signal arrives mid-burst: some answers are out, many requests are in flight.
    while (answered < 40) await new Promise((r) => setTimeout(r, 2));
    const sentAt = Date.now();
    server.child.kill(signal);
    slow.finishAfter(6500);
    const { code } = await server.exited;
    const tookMs = Date.now() - sentAt;
    const all = [...(await Promise.all(outcomes)), ...(await Promise.all(loops)).flat()];
    for (const agent of agents) agent.destroy();

    expect(code, server.output()).toBe(0);
    // The upload in flight was let finish (within the 10 s grace), and answered; the idle connection did not hold the stop.
    const slowReply = await slow.reply;
    expect(slowReply.status, slowReply.text).toBe(200);
    expect(slowReply.headers.connection).toBe('close');
    expect(tookMs).toBeGreaterThanOrEqual(6500);
    expect(tookMs).toBeLessThan(10_000);
    expect((await idleClosed) - sentAt).toBeLessThan(1000);
    expect(server.output()).toContain(`${signal}: finishing in-flight requests`);
    // Every create got its 200 or no answer at all (refused or reset), never another status.
    const odd = all.filter((o) => o.status !== undefined && o.status !== 200);
    expect(odd).toEqual([]);
    for (const o of all) if (o.status === undefined) expect(o.error).toMatch(/ECONNREFUSED|ECONNRESET|EPIPE|socket hang up/);
    const ok = [...all.filter((o) => o.status === 200), { ref: `slow-${signal}`, status: 200, paymentId: (JSON.parse(slowReply.body) as { payment_id: string }).payment_id }];
    // The signal came mid-burst, after the first 40 answers.
    expect(ok.length).toBeGreaterThan(40);

    // A restart on the same file has every answered payment, whole, and nothing that was not answered.
    const again = await startServer(dataFile);
    started.push(again);
    for (const o of ok) {
      const res = await fetch(`${again.url}/openapi/v1/payments/payment/${o.paymentId}`, { headers });
      expect(res.status, o.ref).toBe(200);
      expect(((await res.json()) as { payment_status: string }).payment_status).toBe('P');
    }
    const stored = await listAll(again.url);
    expect(stored.map((p) => p.merchant_ref_no).sort()).toEqual(ok.map((o) => o.ref).sort());
    expect(new Set(stored.map((p) => p.payment_id))).toEqual(new Set(ok.map((o) => o.paymentId)));
    again.child.kill('SIGTERM');
    expect((await again.exited).code).toBe(0);
  }, 40_000);
});
