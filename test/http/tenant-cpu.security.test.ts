/**
 * SPEC 18 "CPU per request is bounded", over a real `serve` process: one merchant does the worst
 * it can at the documented caps (50 fault rules with the longest globs, GETs of 2,048-character
 * paths, 63 KB creates with hundreds of unknown fields and a wrong sign, all at once), and another
 * merchant's p99 stays within a generous bound of its own quiet p99, measured in the same test.
 * Before the bounds, one such GET blocked the event loop for 1-1.6 s and a create for 80-130 ms:
 * against that code the median round's victim p99 here was 450-680 ms (quiet 11-23 ms) on each of three tries.
 */
import { Agent } from 'node:http';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../helpers.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { serversPerTest } from '../support/processes.js';
import { attack, quietAgainstAttacked, send, victimOf } from '../support/victim.js';

const ROUNDS = 5;
const PHASE_MS = 800;
const MAX_VICTIM_REQUESTS = 300;
/** Two attacker connections at once, as the hostile run that found the stalls: one of long-path GETs, one of hostile creates. */
const GET_LOOPS = 1;
const CREATE_LOOPS = 1;

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

    const { statusUrl, poll: victim } = await victimOf(base, PHASE_MS, MAX_VICTIM_REQUESTS);

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

    const { quietP99, loadedP99, rounds } = await quietAgainstAttacked(ROUNDS, victim, underAttack);
    agent.destroy();

    const bound = Math.max(5 * quietP99, quietP99 + 50);
    const report = `median of ${ROUNDS} rounds: quiet p99 ${quietP99.toFixed(1)} ms, under attack p99 ${loadedP99.toFixed(1)} ms, bound ${bound.toFixed(1)} ms; rounds (quiet/attacked p99) ${rounds}; attacker sent ${gets} GETs and ${posts} creates: ${JSON.stringify([...statuses])}`;
    console.log(report);
    expect(loadedP99, report).toBeLessThanOrEqual(bound);
    // The attack really ran: long-path GETs matched against the rules (404), creates refused for the sign (401).
    expect(statuses.get(404) ?? 0, report).toBeGreaterThan(20);
    expect(statuses.get(401) ?? 0, report).toBeGreaterThan(10);
    // 429: past its bytes of bodies a second, the attacker's creates are refused before they are read.
    expect([...statuses.keys()].every((s) => s === 404 || s === 401 || s === 429), report).toBe(true);
  });
});
