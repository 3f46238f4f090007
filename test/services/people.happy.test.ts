/**
 * Generated payers, wallets and merchant names come from each sandbox's own generator, seeded
 * from its seed: two sandboxes with one seed given the same calls (enrolments included) draw the
 * same people, in any interleaving, and another seed draws others.
 */
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { seededSandboxesPerTest } from '../support/sandboxes.js';
import { DEMO_KEY, call, control, createPayment, enroll, expectEnvelope, statusOf } from '../support/http.js';

const sandboxWithSeed = seededSandboxesPerTest();

/** One step of the same calls: a pickup with a generated payer, paid; or a payment paid without a payer. Answers who paid and from which account. */
async function generatedPayment(sandbox: Sandbox, step: number): Promise<string> {
  const { payment_id } = await createPayment(sandbox, { merchant_ref_no: `people-${step}` });
  if (step % 2 === 0) expectEnvelope(await control(sandbox, payment_id, 'pickup'), 200);
  expectEnvelope(await control(sandbox, payment_id, 'pay'), 200);
  const status = (await statusOf(sandbox, payment_id)) as { payer: { id: string; name: string }; source: { account: string } };
  return `${status.payer.id} ${status.payer.name} ${status.source.account}`;
}

/** Enrols merchants with these bodies; answers each one's name and city, and its key. */
async function enrolled(sandbox: Sandbox, bodies: readonly Record<string, unknown>[]): Promise<{ profile: string; key: string; payee: string }[]> {
  const out: { profile: string; key: string; payee: string }[] = [];
  for (const body of bodies) {
    const merchant = await enroll(sandbox, body);
    const { body: own } = await call(sandbox, 'GET', '/sandbox/v1/merchant', { key: merchant.api_key });
    out.push({ profile: `${String(own.name)}, ${String(own.city)}`, key: merchant.api_key, payee: merchant.payee_id });
  }
  return out;
}

/** An enrolled merchant's payment picked up by a generated payer and paid: who paid. */
async function enrolledPickup(sandbox: Sandbox, merchant: { key: string; payee: string }, ref: string): Promise<string> {
  const { payment_id } = await createPayment(sandbox, { payee: merchant.payee, merchant_ref_no: ref }, { key: merchant.key });
  expectEnvelope(await control(sandbox, payment_id, 'pickup', undefined, merchant.key), 200);
  expectEnvelope(await control(sandbox, payment_id, 'pay', undefined, merchant.key), 200);
  const status = (await statusOf(sandbox, payment_id, merchant.key)) as { payer: { id: string; name: string } };
  return `${status.payer.id} ${status.payer.name}`;
}

const STEPS = 6;

describe('generated people are drawn per sandbox', () => {
  it('two sandboxes with one seed give the same payers to the same calls; another seed gives others', async () => {
    const [a, b, other] = [await sandboxWithSeed(7), await sandboxWithSeed(7), await sandboxWithSeed(8)];
    const drawn = async (sandbox: Sandbox) => {
      const out: string[] = [];
      for (let step = 0; step < STEPS; step++) out.push(await generatedPayment(sandbox, step));
      return out;
    };
    const first = await drawn(a);
    expect(await drawn(b)).toEqual(first);
    const others = await drawn(other);
    expect(new Set(first).size).toBe(STEPS);
    for (const payer of others) expect(first).not.toContain(payer);
  });

  it("interleaving two sandboxes' calls changes neither's sequence", async () => {
    const alone = await sandboxWithSeed(7);
    const expected: string[] = [];
    for (let step = 0; step < STEPS; step++) expected.push(await generatedPayment(alone, step));

    const [left, right] = [await sandboxWithSeed(7), await sandboxWithSeed(7)];
    const fromLeft: string[] = [];
    const fromRight: string[] = [];
    // Left runs two steps for each of right's, then right catches up: the generators' calls alternate unevenly.
    for (let step = 0; step < STEPS; step++) {
      fromLeft.push(await generatedPayment(left, step));
      if (step % 2 === 1) {
        fromRight.push(await generatedPayment(right, fromRight.length));
        fromRight.push(await generatedPayment(right, fromRight.length));
      }
    }
    expect(fromLeft).toEqual(expected);
    expect(fromRight).toEqual(expected);
  });

  it('a named payer gets the same name and wallet in every sandbox, whatever the seed', async () => {
    const paidBy = async (sandbox: Sandbox) => {
      const { payment_id } = await createPayment(sandbox, { merchant_ref_no: 'named' });
      expectEnvelope(await control(sandbox, payment_id, 'pay', { payer: 'alice-42' }), 200);
      return statusOf(sandbox, payment_id, DEMO_KEY);
    };
    const [seven, eight] = [await paidBy(await sandboxWithSeed(7)), await paidBy(await sandboxWithSeed(8))];
    expect(seven.payer).toEqual(eight.payer);
    expect(seven.source).toEqual(eight.source);
  });

  it('enrolled merchants get the same names and generated payers in two sandboxes with one seed; another seed gives others', async () => {
    const bodies = [{}, { home_currency: 'EUR' }, { city: 'Penang' }, { name: 'Named Shop' }];
    const run = async (sandbox: Sandbox) => {
      const merchants = await enrolled(sandbox, bodies);
      const payers: string[] = [];
      for (const merchant of merchants) for (const ref of ['order-1', 'order-2']) payers.push(await enrolledPickup(sandbox, merchant, ref));
      return { profiles: merchants.map((m) => m.profile), payers };
    };
    const [a, b, other] = [await run(await sandboxWithSeed(7)), await run(await sandboxWithSeed(7)), await run(await sandboxWithSeed(8))];
    expect(b).toEqual(a);
    expect(new Set(a.profiles).size).toBe(4);
    expect(a.profiles[2]).toMatch(/, Penang$/);
    expect(a.profiles[3]).toMatch(/^Named Shop, /);
    expect(new Set(a.payers).size).toBe(8);
    expect(other.profiles[0]).not.toBe(a.profiles[0]);
    for (const payer of other.payers) expect(a.payers).not.toContain(payer);
    const demoName = async (sandbox: Sandbox) => (await call(sandbox, 'GET', '/sandbox/v1/merchant', { key: DEMO_KEY })).body.name;
    expect(await demoName(await sandboxWithSeed(7))).toBe(await demoName(await sandboxWithSeed(7)));
  });

  it('two merchants enrolled alike get the same name: a name says nothing of who enrolled before', async () => {
    const sandbox = await sandboxWithSeed(7);
    const [first, , third] = await enrolled(sandbox, [{}, { name: 'Between' }, {}]);
    expect(third!.profile).toBe(first!.profile);
  });
});
