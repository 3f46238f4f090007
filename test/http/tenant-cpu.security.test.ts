/**
 * SPEC 18 "CPU per request is bounded", over a real `serve` process: one merchant does the worst
 * it can at the documented caps (50 fault rules with the longest globs, GETs of 2,048-character
 * paths, 63 KB creates with hundreds of unknown fields and a wrong sign, all at once), and another
 * merchant's p99 stays within a generous bound of its own quiet p99, measured in the same test.
 * Before the bounds, one such GET blocked the event loop for 1-1.6 s and a create for 80-130 ms:
 * against that code the median round's victim p99 here was 450-680 ms (quiet 11-23 ms) on each of three tries.
 */
import { Agent, request } from 'node:http';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_KEY, DEMO_PAYEE, uniqueRef } from '../helpers.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { serversPerTest } from '../support/processes.js';

const ROUNDS = 5;
const PHASE_MS = 800;
const MAX_VICTIM_REQUESTS = 300;
/** Two attacker connections at once, as the hostile run that found the stalls: one of long-path GETs, one of hostile creates. */
const GET_LOOPS = 1;
const CREATE_LOOPS = 1;

interface Answered {
  readonly status: number;
  readonly json: any;
}

async function send(base: string, method: string, url: string, key: string, body?: string): Promise<Answered> {
  const res = await fetch(`${base}${url}`, { method, headers: { 'Service-Api-Key': key, ...(body ? { 'Content-Type': 'application/json' } : {}) }, body });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) };
}

/**
 * The attacker's request through node:http, its answer drained unread: the client work of the
 * attack (parsing answers of about 70 KB) must not delay the victim's requests in this same process.
 */
function attack(agent: Agent, base: string, method: string, url: string, key: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'Service-Api-Key': key };
    if (body) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    const req = request(`${base}${url}`, { method, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A glob of the longest allowed (256 characters) that a path of a's runs almost all the way through, and never matches. */
const longGlob = (n: number) => `/openapi/v1/*${'a'.repeat(240 - n)}${'b'.repeat(n + 1)}*`.slice(0, 256);

/** A create of about 63 KB: hundreds of unknown fields and a wrong sign, different on every call (no hint kept). */
function hostileCreate(payee: string, n: number): string {
  const body: Record<string, unknown> = { payee, product_type: 'QR_DYNAMIC', merchant_ref_no: `attack-${n}`, amount: 25, metadata: { z: 'a b', a: 1 }, sign_type: 'SHA512' };
  for (let i = 0; JSON.stringify(body).length < 62_500; i++) body[`unknown_field_number_${String(i).padStart(4, '0')}`] = `v a!'()*~ ${'y'.repeat(150)}`;
  body.sign = n.toString(16).padStart(128, 'f');
  return JSON.stringify(body);
}

/** Runs `step` over and over until `until`, `loops` at a time; answers how many ran. */
async function repeatUntil(until: number, loops: number, step: (n: number) => Promise<void>): Promise<number> {
  let count = 0;
  await Promise.all(Array.from({ length: loops }, async () => {
    while (performance.now() < until) await step(count++);
  }));
  return count;
}

function p99(latencies: number[]): number {
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

// Its server runs on the memory store whatever the pass: npm test's PostgreSQL pass need not run it again.
describe.skipIf(process.env.SANDBOX_TEST_STORE === 'postgres')('one merchant at the caps cannot stall another', () => {
  const servers = serversPerTest();
  afterAll(removeTempDirs);

  // Timing on a machine shared with other work: a second and third try, each with a fresh server;
  // the code before the bounds missed the bound by seconds on every try.
  it("keeps the victim's p99 within max(5 x quiet, quiet + 50 ms) while the attacker runs everything at once", { retry: 2, timeout: 60_000 }, async () => {
    const server = await servers.start(path.join(tempDir(), 'sandbox.json'), { SANDBOX_STORE: 'memory', SANDBOX_LOG: 'off' });
    const base = server.url;
    const attacker = (await send(base, 'POST', '/sandbox/v1/merchants', '', JSON.stringify({ require_signature: true }))).json;
    for (let n = 0; n < 50; n++) {
      const added = await send(base, 'POST', '/sandbox/v1/faults', attacker.api_key, JSON.stringify({ match: { method: 'GET', path: longGlob(n) }, fault: 'error=503' }));
      expect(added.status, JSON.stringify(added.json)).toBe(200);
    }
    const longPath = `/openapi/v1/payments/payment/${'a'.repeat(2_048 - 29)}`;
    expect(longPath).toHaveLength(2_048);
    const creates = Array.from({ length: 40 }, (_, n) => hostileCreate(attacker.payee_id, n));

    const created = await send(base, 'POST', '/openapi/v1/payments/payment', DEMO_KEY, JSON.stringify({ payee: DEMO_PAYEE, product_type: 'QR_DYNAMIC', merchant_ref_no: uniqueRef('victim'), amount: 10.5 }));
    const statusUrl = `/openapi/v1/payments/payment/${created.json.payment_id}`;
    /** The victim polls its payment's status, one request at a time, for one phase. */
    const victim = async (): Promise<number[]> => {
      const latencies: number[] = [];
      const until = performance.now() + PHASE_MS;
      while (performance.now() < until && latencies.length < MAX_VICTIM_REQUESTS) {
        const started = performance.now();
        const answer = await send(base, 'GET', statusUrl, DEMO_KEY);
        latencies.push(performance.now() - started);
        expect(answer.status).toBe(200);
      }
      return latencies;
    };

    const agent = new Agent({ keepAlive: true });
    const statuses = new Map<number, number>();
    const count = (status: number): void => {
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    };
    let [gets, posts] = [0, 0];
    /** The attacker does everything at once while the victim polls. */
    const underAttack = async (): Promise<number[]> => {
      const until = performance.now() + PHASE_MS;
      const attacking = Promise.all([
        repeatUntil(until, GET_LOOPS, async () => count(await attack(agent, base, 'GET', longPath, attacker.api_key))),
        repeatUntil(until, CREATE_LOOPS, async (n) => count(await attack(agent, base, 'POST', '/openapi/v1/payments/payment', attacker.api_key, creates[(posts + n) % creates.length]!))),
      ]);
      const latencies = await victim();
      const [g, p] = await attacking;
      [gets, posts] = [gets + g, posts + p];
      return latencies;
    };

    // Warm both paths up, so neither phase pays for the first compilation.
    for (let n = 0; n < 20; n++) await send(base, 'GET', statusUrl, DEMO_KEY);
    await underAttack();
    [gets, posts] = [0, 0];
    statuses.clear();

    // Quiet and attacked phases alternate, so a machine whose load drifts weighs on both alike; the
    // median round is judged, so one round that another process on the machine stalls does not decide.
    const quiet: number[] = [];
    const loaded: number[] = [];
    const rounds: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      quiet.push(p99(await victim()));
      loaded.push(p99(await underAttack()));
      rounds.push(`${quiet[round]!.toFixed(0)}/${loaded[round]!.toFixed(0)}`);
    }
    agent.destroy();

    const quietP99 = median(quiet);
    const loadedP99 = median(loaded);
    const bound = Math.max(5 * quietP99, quietP99 + 50);
    const report = `median of ${ROUNDS} rounds: quiet p99 ${quietP99.toFixed(1)} ms, under attack p99 ${loadedP99.toFixed(1)} ms, bound ${bound.toFixed(1)} ms; rounds (quiet/attacked p99) ${rounds.join(', ')}; attacker sent ${gets} GETs and ${posts} creates: ${JSON.stringify([...statuses])}`;
    console.log(report);
    expect(loadedP99, report).toBeLessThanOrEqual(bound);
    // The attack really ran: long-path GETs matched against the rules (404), creates refused for the sign (401).
    expect(statuses.get(404) ?? 0, report).toBeGreaterThan(20);
    expect(statuses.get(401) ?? 0, report).toBeGreaterThan(10);
    // 429: past its bytes of bodies a second, the attacker's creates are refused before they are read.
    expect([...statuses.keys()].every((s) => s === 404 || s === 401 || s === 429), report).toBe(true);
  });
});
