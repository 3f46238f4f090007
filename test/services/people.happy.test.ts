/**
 * Generated payers, wallets and merchant names come from each sandbox's own generator, seeded
 * from its seed: two sandboxes with one seed given the same calls draw the same people, in any
 * interleaving, and another seed draws others (merchant names: per payee id, which is random).
 */
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { PeopleGenerator } from '../../src/services/people.js';
import { seededSandboxesPerTest } from '../support/sandboxes.js';
import { DEMO_KEY, control, createPayment, expectEnvelope, statusOf } from '../support/http.js';

const sandboxWithSeed = seededSandboxesPerTest();

/** One step of the same calls: a pickup with a generated payer, paid; or a payment paid without a payer. Answers who paid and from which account. */
async function generatedPayment(sandbox: Sandbox, step: number): Promise<string> {
  const { payment_id } = await createPayment(sandbox, { merchant_ref_no: `people-${step}` });
  if (step % 2 === 0) expectEnvelope(await control(sandbox, payment_id, 'pickup'), 200);
  expectEnvelope(await control(sandbox, payment_id, 'pay'), 200);
  const status = (await statusOf(sandbox, payment_id)) as { payer: { id: string; name: string }; source: { account: string } };
  return `${status.payer.id} ${status.payer.name} ${status.source.account}`;
}

async function enrolledNames(sandbox: Sandbox, count: number): Promise<string[]> {
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const merchant = await sandbox.control.enroll();
    const answer = await sandbox.fetch(new Request('http://sandbox.test/sandbox/v1/merchant', { headers: { 'Service-Api-Key': merchant.apiKey } }));
    const body = (await answer.json()) as { name: string; city: string };
    names.push(`${body.name}, ${body.city}`);
  }
  return names;
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

  it('merchants enrolled without a name get names drawn from the seed and their payee id, not from an enrolment count', async () => {
    const [a, b] = [await sandboxWithSeed(7), await sandboxWithSeed(7)];
    const names = await enrolledNames(a, 4);
    expect(new Set(names).size).toBe(4);
    const [seven, again, eight] = [new PeopleGenerator(7), new PeopleGenerator(7), new PeopleGenerator(8)];
    for (let i = 0; i < 5; i++) again.merchantProfile(`payee_other${i}`);
    expect(again.merchantProfile('payee_A')).toEqual(seven.merchantProfile('payee_A'));
    const ids = ['payee_A', 'payee_B', 'payee_C'];
    expect(ids.map((id) => eight.merchantProfile(id))).not.toEqual(ids.map((id) => seven.merchantProfile(id)));
    const demoName = async (sandbox: Sandbox) => (await (await sandbox.fetch(new Request('http://sandbox.test/sandbox/v1/merchant', { headers: { 'Service-Api-Key': DEMO_KEY } }))).json()) as { name: string };
    expect((await demoName(a)).name).toBe((await demoName(b)).name);
  });
});
