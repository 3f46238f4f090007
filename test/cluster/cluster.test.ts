/**
 * Issue 9, the cluster: two `serve` processes on one PostgreSQL database behind a round-robin
 * proxy are one sandbox (SPEC 14): scenarios, conflicting transitions, merchant_ref_no
 * uniqueness, the clock, rate limits and the journal hold across instances.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRoundRobinProxy } from '../../bench/lib/round-robin-proxy.js';
import type { RoundRobinProxy } from '../../bench/lib/round-robin-proxy.js';
import { replay } from '../../src/scenarios/replay.js';
import { formatFileResult } from '../../src/scenarios/report-human.js';
import { freshDatabase } from '../support/databases.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { killQuietly, startServer } from '../support/processes.js';
import type { ServerProcess } from '../support/processes.js';

const SCENARIOS = fileURLToPath(new URL('../../scenarios/', import.meta.url));

let a: ServerProcess | undefined;
let b: ServerProcess | undefined;
let proxy: RoundRobinProxy | undefined;

beforeAll(async () => {
  const url = await freshDatabase();
  const dir = tempDir('payreq-cluster-');
  // Started together on purpose: the schema migration runs under an advisory lock.
  [a, b] = await Promise.all([
    startServer(path.join(dir, 'a.json'), { SANDBOX_STORE: url }),
    startServer(path.join(dir, 'b.json'), { SANDBOX_STORE: url }),
  ]);
  expect(a.output()).toContain('(store: postgres');
  expect(b.output()).toContain('(store: postgres');
  proxy = await startRoundRobinProxy([a.url, b.url]);
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  killQuietly(a);
  killQuietly(b);
  removeTempDirs();
});

interface Merchant {
  readonly key: string;
  readonly payee: string;
}

interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
}

async function call(base: string, method: string, route: string, key?: string, body?: unknown): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (key) headers['Service-Api-Key'] = key;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${base}${route}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

let merchants = 0;
async function enroll(settings: Record<string, unknown> = {}): Promise<Merchant> {
  const answer = await call(proxy!.url, 'POST', '/sandbox/v1/merchants', undefined, { name: `Cluster Shop ${++merchants}`, ...settings });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return { key: answer.body.api_key as string, payee: answer.body.payee_id as string };
}

async function create(base: string, m: Merchant, ref: string): Promise<Reply> {
  return call(base, 'POST', '/openapi/v1/payments/payment', m.key, { payee: m.payee, product_type: 'QR_DYNAMIC', merchant_ref_no: ref, amount: 12.34 });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('two instances on one PostgreSQL database behind a round-robin proxy', () => {
  it('replays every shipped scenario green through the proxy, served by both instances', async () => {
    const before = [...proxy!.served];
    const report = await replay([SCENARIOS], { baseUrl: proxy!.url });
    const failures = report.files.filter((f) => f.status === 'failed').map((f) => formatFileResult(f));
    expect(failures, failures.join('\n\n')).toEqual([]);
    const shipped = readdirSync(SCENARIOS).filter((f) => /\.(ya?ml|json)$/.test(f) && f !== 'scenario.schema.json').length;
    expect(shipped).toBeGreaterThanOrEqual(36);
    expect(report.files.length).toBe(shipped);
    expect(report.passed).toBe(shipped);
    const servedA = proxy!.served[0]! - before[0]!;
    const servedB = proxy!.served[1]! - before[1]!;
    // Round robin: the two counts differ by at most one, and both are well above zero.
    expect(servedA).toBeGreaterThan(100);
    expect(Math.abs(servedA - servedB)).toBeLessThanOrEqual(1);
  }, 40_000);

  it('50 concurrent conflicting transitions on one payment across instances: exactly one wins', async () => {
    const m = await enroll();
    const created = await create(proxy!.url, m, 'race-1');
    expect(created.status).toBe(200);
    const id = created.body.payment_id as string;
    const kinds = Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? 'pay' : 'cancel'));
    const answers = await Promise.all(
      kinds.map((kind) =>
        kind === 'pay'
          ? call(proxy!.url, 'POST', `/sandbox/v1/payments/${id}/pay`, m.key, {})
          : call(proxy!.url, 'POST', `/openapi/v1/payments/payment/${id}/cancel`, m.key, { reason: 'race across instances' }),
      ),
    );
    const winners = answers.flatMap((r, i) => (r.status === 200 ? [kinds[i]!] : []));
    expect(winners.length, JSON.stringify(answers.map((r) => r.status))).toBe(1);
    const losers = answers.filter((r) => r.status !== 200);
    expect(losers.map((r) => [r.status, r.body.code])).toEqual(Array.from({ length: 49 }, () => [402, 402]));
    const expected = winners[0] === 'pay' ? 'A' : 'V';
    for (const instance of [a!, b!]) {
      const read = await call(instance.url, 'GET', `/openapi/v1/payments/payment/${id}`, m.key);
      expect(read.body.payment_status).toBe(expected);
      const events = await call(instance.url, 'GET', `/sandbox/v1/payments/${id}/events`, m.key);
      expect(events.body.events.map((e: { to: string }) => e.to)).toEqual(['P', expected]);
    }
  });

  it('the same merchant_ref_no sent to both instances at once makes exactly one payment, 20 times over', async () => {
    const m = await enroll();
    for (let i = 0; i < 20; i++) {
      const ref = `dup-${i}`;
      const [fromA, fromB] = await Promise.all([create(a!.url, m, ref), create(b!.url, m, ref)]);
      const pair = [fromA, fromB];
      expect(pair.map((r) => r.status).sort(), `ref ${ref}: ${JSON.stringify(pair.map((r) => r.body))}`).toEqual([200, 402]);
      const won = pair.find((r) => r.status === 200)!;
      const lost = pair.find((r) => r.status === 402)!;
      expect(lost.body.code).toBe(402);
      expect(lost.body.payment_id).toBe(won.body.payment_id);
      for (const instance of [a!, b!]) {
        const list = await call(instance.url, 'GET', `/sandbox/v1/payments?merchant_ref_no=${ref}`, m.key);
        expect(list.body.total).toBe(1);
      }
    }
  });

  it('the clock advanced through instance A expires the payments that instance B reads', async () => {
    const m = await enroll({ qr_ttl_seconds: 60 });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const created = await create(proxy!.url, m, `ttl-${i}`);
      expect(created.status).toBe(200);
      ids.push(created.body.payment_id as string);
    }
    const before = await Promise.all(ids.map((id) => call(b!.url, 'GET', `/openapi/v1/payments/payment/${id}`, m.key)));
    expect(before.map((r) => r.body.payment_status)).toEqual(ids.map(() => 'P'));
    const advanced = await call(a!.url, 'POST', '/sandbox/v1/clock/advance', m.key, { seconds: 61 });
    expect(advanced.status).toBe(200);
    // Exactly 20, even when a scheduler tick of either instance expires some of them first.
    expect(advanced.body.changed).toBe(20);
    const clockB = await call(b!.url, 'GET', '/sandbox/v1/clock', m.key);
    expect(clockB.body.offset_seconds).toBe(61);
    const after = await Promise.all(ids.map((id) => call(b!.url, 'GET', `/openapi/v1/payments/payment/${id}`, m.key)));
    expect(after.map((r) => [r.status, r.body.payment_status])).toEqual(ids.map(() => [200, 'E']));
    // Each expiry happened once, whichever instance claimed it.
    const histories = await Promise.all(ids.map((id) => call(b!.url, 'GET', `/sandbox/v1/payments/${id}/events`, m.key)));
    expect(histories.map((r) => r.body.events.map((e: { to: string }) => e.to))).toEqual(ids.map(() => ['P', 'E']));
  });

  it('a limit of 5 requests per second holds across both instances together', async () => {
    const m = await enroll({ rate_limit_per_second: 5 });
    let burst: Reply[] | undefined;
    for (let attempt = 0; attempt < 2 && !burst; attempt++) {
      // Start right after a second boundary, so the burst fits in one window of real time.
      while (Date.now() % 1000 >= 50) await sleep(Math.max(1, 1000 - (Date.now() % 1000)));
      const started = Date.now();
      const answers = await Promise.all(Array.from({ length: 20 }, () => call(proxy!.url, 'GET', '/sandbox/v1/merchant', m.key)));
      if (Math.floor(Date.now() / 1000) === Math.floor(started / 1000)) burst = answers;
    }
    expect(burst, 'both bursts crossed a second boundary').toBeDefined();
    const ok = burst!.filter((r) => r.status === 200);
    const limited = burst!.filter((r) => r.status === 429);
    expect(ok.length).toBe(5);
    expect(limited.length).toBe(15);
    for (const r of limited) {
      expect(r.body.code).toBe(429);
      expect(r.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    }
  });

  it('the journal read through either instance shows the requests the other one served', async () => {
    const m = await enroll();
    const before = [...proxy!.served];
    const paths: string[] = [];
    for (let i = 0; i < 10; i++) {
      const route = `/openapi/v1/payments/payment/pay_journal${String(i).padStart(2, '0')}unknownXXXXXX`;
      paths.push(route);
      const answer = await call(proxy!.url, 'GET', route, m.key);
      expect(answer.status).toBe(404);
    }
    expect([proxy!.served[0]! - before[0]!, proxy!.served[1]! - before[1]!]).toEqual([5, 5]);
    const seen = [];
    for (const instance of [a!, b!]) {
      const journal = await call(instance.url, 'GET', '/sandbox/v1/requests?limit=100', m.key);
      expect(journal.status).toBe(200);
      const entries = (journal.body.requests as { id: number; method: string; path: string; status: number }[])
        .filter((e) => paths.includes(e.path))
        .map((e) => ({ id: e.id, method: e.method, path: e.path, status: e.status }));
      expect(entries.map((e) => e.path).sort()).toEqual([...paths].sort());
      expect(entries.every((e) => e.method === 'GET' && e.status === 404)).toBe(true);
      seen.push(entries);
    }
    expect(seen[1]).toEqual(seen[0]);
  });

  it('an Idempotency-Key holds across instances: a retry through the other one replays, a race makes one payment', async () => {
    const m = await enroll();
    const body = { payee: m.payee, product_type: 'QR_DYNAMIC', merchant_ref_no: 'idem-1', amount: 11 };
    const send = (base: string, key: string, payload: unknown) =>
      fetch(`${base}/openapi/v1/payments/payment`, { method: 'POST', headers: { 'Service-Api-Key': m.key, 'Content-Type': 'application/json', 'Idempotency-Key': key }, body: JSON.stringify(payload) });
    const first = await send(a!.url, 'idem-key-1', body);
    const retry = await send(b!.url, 'idem-key-1', body);
    expect(first.status).toBe(200);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.text()).toBe(await first.text());
    // 10 rounds of the same key sent to both at once: one runs, the other is in progress (402) or replays (200).
    for (let i = 0; i < 10; i++) {
      const raced = { ...body, merchant_ref_no: `idem-race-${i}` };
      const answers = await Promise.all([send(a!.url, `race-${i}`, raced), send(b!.url, `race-${i}`, raced)]);
      const fresh = answers.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
      expect(fresh).toHaveLength(1);
      for (const r of answers) expect([200, 402]).toContain(r.status);
      const listed = await call(b!.url, 'GET', `/sandbox/v1/payments?merchant_ref_no=idem-race-${i}`, m.key);
      expect(listed.body.total).toBe(1);
    }
  });

  it("a fault rule's times counter holds across instances: times 3 fires exactly 3 times through both", async () => {
    const m = await enroll();
    const rule = await call(a!.url, 'POST', '/sandbox/v1/faults', m.key, { match: { method: 'GET', path: '/openapi/v1/payments/payment/*' }, fault: 'error=503', times: 3 });
    expect(rule.status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => call(i % 2 ? a!.url : b!.url, 'GET', `/openapi/v1/payments/payment/pay_times${String(i).padStart(2, '0')}unknownXXXXXXXX`, m.key)),
    );
    expect(answers.filter((r) => r.status === 503)).toHaveLength(3);
    expect(answers.filter((r) => r.status === 404)).toHaveLength(9);
    const rules = await call(b!.url, 'GET', '/sandbox/v1/faults', m.key);
    expect(rules.body.rules[0]).toMatchObject({ fired: 3, times_left: 0 });
  });
});
