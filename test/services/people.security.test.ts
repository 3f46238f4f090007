/**
 * SPEC 18, other tenants stay invisible: a generated payer or merchant name is drawn from what it
 * is for (the merchant's own calls), never from a count across the sandbox, so it tells a merchant
 * nothing of the others' pickups or enrolments.
 */
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { seededSandboxesPerTest } from '../support/sandboxes.js';
import { call, control, createPayment, enroll, expectEnvelope, statusOf } from '../support/http.js';

const sandboxWithSeed = seededSandboxesPerTest();

/** The demo merchant's payment `step`, picked up by a generated payer and paid: who paid. */
async function demoPickup(sandbox: Sandbox, step: number): Promise<string> {
  const { payment_id } = await createPayment(sandbox, { merchant_ref_no: `mine-${step}` });
  expectEnvelope(await control(sandbox, payment_id, 'pickup'), 200);
  expectEnvelope(await control(sandbox, payment_id, 'pay'), 200);
  return ((await statusOf(sandbox, payment_id)) as { payer: { id: string } }).payer.id;
}

describe('generated people tell nothing of other merchants', () => {
  it("a merchant's generated payers are the same whatever another merchant picks up in between", async () => {
    const [quiet, busy] = [await sandboxWithSeed(7), await sandboxWithSeed(7)];
    const other = await enroll(busy, { home_currency: 'SGD' });
    const alone: string[] = [];
    const meanwhile: string[] = [];
    for (let step = 0; step < 4; step++) {
      alone.push(await demoPickup(quiet, step));
      for (let i = 0; i <= step; i++) {
        const { payment_id } = await createPayment(busy, { payee: other.payee_id, merchant_ref_no: `theirs-${step}-${i}` }, { key: other.api_key });
        expectEnvelope(await control(busy, payment_id, 'pickup', undefined, other.api_key), 200);
      }
      meanwhile.push(await demoPickup(busy, step));
    }
    expect(meanwhile).toEqual(alone);
    expect(new Set(alone).size).toBe(4);
  });

  it('a merchant enrolled without a name gets the one its own enrolment draws, however many enrolled before it', async () => {
    const [crowded, empty] = [await sandboxWithSeed(7), await sandboxWithSeed(7)];
    for (let i = 0; i < 5; i++) await enroll(crowded, { name: `Earlier ${i}` });
    const late = await enroll(crowded, { home_currency: 'EUR' });
    const first = await enroll(empty, { home_currency: 'EUR' });
    const profileOf = async (sandbox: Sandbox, key: string) => {
      const { body } = await call(sandbox, 'GET', '/sandbox/v1/merchant', { key });
      return { name: body.name, city: body.city };
    };
    expect(await profileOf(crowded, late.api_key)).toEqual(await profileOf(empty, first.api_key));
    // Its payee id (random) plays no part: the sixth and the first, with the same body, are alike.
    expect(late.payee_id).not.toBe(first.payee_id);
  });
});
