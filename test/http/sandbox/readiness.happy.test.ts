/**
 * SPEC 16, go-live readiness: small clients drive good and bad integrations through the API,
 * and the report judges what they really did.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EnrolledMerchant, Sandbox } from '../../../src/index.js';
import { memorySandbox } from '../../helpers.js';
import { call } from '../../support/http.js';

let sandbox: Sandbox;
let m: EnrolledMerchant;
beforeEach(async () => {
  // A real clock: the report orders requests in time (a 429 and what followed it).
  sandbox = await memorySandbox();
  m = await sandbox.control.enroll({ name: 'Go-live Shop' });
});
afterEach(() => sandbox.close());

let refs = 0;
const body = (overrides: Record<string, unknown> = {}) => ({ payee: m.payeeId, product_type: 'QR_DYNAMIC', merchant_ref_no: `gl-${++refs}`, amount: 12.5, ...overrides });
const as = (path: string, method = 'GET', payload?: unknown, headers: Record<string, string> = {}) =>
  call(sandbox, method, path, { key: m.apiKey, ...(payload === undefined ? {} : { body: payload }), headers });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function report() {
  const answer = await as('/sandbox/v1/readiness');
  expect(answer.status).toBe(200);
  return { ready: answer.body.ready as boolean, description: answer.body.description as string, check: (id: string) => (answer.body.checks as { id: string; status: string; evidence: string[]; advice: string | null; required: boolean }[]).find((c) => c.id === id)! };
}

/** Creates a payment and reads it, as a careful integration does; answers its id. */
async function createAndRead(overrides: Record<string, unknown> = {}): Promise<string> {
  const created = await as('/openapi/v1/payments/payment', 'POST', body(overrides));
  expect(created.status).toBe(200);
  await as(`/openapi/v1/payments/payment/${created.body.payment_id}`);
  return created.body.payment_id as string;
}

/** A lost create (timeout after commit): the client gives up after 100 ms. */
async function lostCreate(payload: Record<string, unknown>): Promise<void> {
  const lost = await sandbox
    .fetch(new Request('http://sandbox/openapi/v1/payments/payment', {
      method: 'POST',
      headers: { 'Service-Api-Key': m.apiKey, 'Content-Type': 'application/json', 'Sandbox-Fault': 'timeout' },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(100),
    }))
    .then((r) => r.status, () => 'lost');
  // In-process, a held answer ends when the client aborts (504, never read by a real client).
  expect([504, 'lost']).toContain(lost);
  await sleep(20);
}

describe('GET /sandbox/v1/readiness', () => {
  it('a merchant that did nothing is not ready, and every check says what to try', async () => {
    const r = await report();
    expect(r.ready).toBe(false);
    expect(r.description).toMatch(/^Not ready for go-live: \d+ required checks do not pass \(create, poll-status/);
    for (const id of ['create', 'poll-status', 'outcome-paid', 'outcome-expired', 'outcome-failed', 'outcome-cancelled', 'outcome-voided', 'interrupted-create', 'refused-transition', 'rate-limit', 'signature', 'webhook', 'webhook-duplicate', 'production-path']) {
      const c = r.check(id);
      expect(c.status, id).toBe('not_tried');
      expect(c.advice, id).toMatch(/.{20,}/);
    }
  });

  it('a failed check names what it failed on: the create whose payment was never read', async () => {
    const created = await as('/openapi/v1/payments/payment', 'POST', body());
    expect(created.status).toBe(200);
    const poll = (await report()).check('poll-status');
    expect(poll.status).toBe('fail');
    expect(poll.evidence).toHaveLength(1);
    expect(poll.evidence[0]).toMatch(new RegExp(`^\\S+ created ${created.body.payment_id as string}, never read after$`));
  });

  it('a create whose answer was lost still made a payment: reading that payment passes create and poll-status', async () => {
    const payload = body();
    await lostCreate(payload);
    const found = await as(`/sandbox/v1/payments?merchant_ref_no=${payload.merchant_ref_no as string}`);
    const [payment] = found.body.payments as { payment_id: string }[];
    await as(`/openapi/v1/payments/payment/${payment!.payment_id}`);
    const r = await report();
    expect(r.check('create').status).toBe('pass');
    expect(r.check('poll-status').status).toBe('pass');
    expect(r.check('interrupted-create').status).toBe('pass');
  });

  it('a careful integration through every outcome, a lost create and a refusal is ready', async () => {
    const paid = await createAndRead();
    await as(`/sandbox/v1/payments/${paid}/pay`, 'POST');
    await as(`/openapi/v1/payments/payment/${paid}`);
    const cancelled = await createAndRead();
    await as(`/openapi/v1/payments/payment/${cancelled}/cancel`, 'POST', { reason: 'customer left' });
    await as(`/openapi/v1/payments/payment/${cancelled}`);
    const failed = await createAndRead({ payer: 'PAYER_DECLINES' });
    expect(failed).toMatch(/^pay_/);
    // A refused transition, met once and understood: cancel a paid payment (402), then void it.
    expect((await as(`/openapi/v1/payments/payment/${paid}/cancel`, 'POST', { reason: 'oops' })).status).toBe(402);
    await as(`/openapi/v1/payments/payment/${paid}/void`, 'POST', { reason: 'refund' });
    await as(`/openapi/v1/payments/payment/${paid}`);
    // The lost create, recovered by sending the same merchant_ref_no again and reading the payment it names.
    const lost = body();
    await lostCreate(lost);
    const again = await as('/openapi/v1/payments/payment', 'POST', lost);
    expect(again.status).toBe(402);
    await as(`/openapi/v1/payments/payment/${again.body.payment_id}`);
    // Expiry: a payment left alone, the clock moved past its time-to-live, then read.
    const expired = await createAndRead();
    await as('/sandbox/v1/clock/advance', 'POST', { seconds: 16 * 60 });
    await as(`/openapi/v1/payments/payment/${expired}`);

    const r = await report();
    for (const id of ['create', 'poll-status', 'outcome-paid', 'outcome-expired', 'outcome-failed', 'outcome-cancelled', 'outcome-voided', 'interrupted-create', 'refused-transition', 'production-path']) {
      expect(r.check(id).status, `${id}: ${r.check(id).advice}`).toBe('pass');
      expect(r.check(id).evidence.length, id).toBeGreaterThan(0);
    }
    expect(r.ready).toBe(true);
    expect(r.description).toBe('Ready for go-live: every required check passes.');
  });

  it('retrying a lost create under a new merchant_ref_no fails interrupted-create, naming the second create', async () => {
    await createAndRead();
    await lostCreate(body());
    const second = await as('/openapi/v1/payments/payment', 'POST', body());
    expect(second.status).toBe(200);
    const c = (await report()).check('interrupted-create');
    expect(c.status).toBe('fail');
    expect(c.evidence.join(' ')).toContain(second.headers.get('request-id')!);
    expect(c.advice).toMatch(/never create it again under a new merchant_ref_no/);
  });

  it('a lost create followed up by the same Idempotency-Key passes', async () => {
    const payload = body();
    const lost = await sandbox
      .fetch(new Request('http://sandbox/openapi/v1/payments/payment', {
        method: 'POST',
        headers: { 'Service-Api-Key': m.apiKey, 'Content-Type': 'application/json', 'Sandbox-Fault': 'timeout', 'Idempotency-Key': 'go-live-1' },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(100),
      }))
      .then((r) => r.status, () => 'lost');
    expect([504, 'lost']).toContain(lost);
    expect((await as('/openapi/v1/payments/payment', 'POST', payload, { 'Idempotency-Key': 'go-live-1' })).status).toBe(200);
    expect((await report()).check('interrupted-create').status).toBe('pass');
  });

  it('polling a refused cancel again and again fails refused-transition', async () => {
    const id = await createAndRead();
    await as(`/sandbox/v1/payments/${id}/pay`, 'POST');
    for (let i = 0; i < 5; i++) expect((await as(`/openapi/v1/payments/payment/${id}/cancel`, 'POST', { reason: 'again' })).status).toBe(402);
    const c = (await report()).check('refused-transition');
    expect(c.status).toBe('fail');
    expect(c.evidence[0]).toMatch(/^5 times POST \/openapi\/v1\/payments\/payment\/pay_\w+\/cancel$/);
  });

  it('hammering after a 429 fails rate-limit; waiting for Retry-After passes', async () => {
    m = await sandbox.control.enroll({ name: 'Limited Shop', rate_limit_per_second: 3 });
    const burst = await Promise.all(Array.from({ length: 6 }, () => as('/sandbox/v1/payments')));
    expect(burst.some((a) => a.status === 429)).toBe(true);
    await sleep(50);
    await as('/sandbox/v1/payments');
    // The report is read once the window has passed (its own read counts against the limit too).
    await sleep(1_100);
    expect((await report()).check('rate-limit').status).toBe('fail');

    await sandbox.control.reset(m.apiKey);
    const again = await Promise.all(Array.from({ length: 6 }, () => as('/sandbox/v1/payments')));
    const refused = again.find((a) => a.status === 429)!;
    await sleep(Number(refused.headers.get('retry-after')) * 1000 + 50);
    await as('/sandbox/v1/payments');
    await sleep(1_100);
    expect((await report()).check('rate-limit').status).toBe('pass');
  });

  it('a call through the /v1 alias fails production-path', async () => {
    await createAndRead();
    await as('/v1/payments/payment/pay_unknown');
    const c = (await report()).check('production-path');
    expect(c.status).toBe('fail');
    expect(c.advice).toMatch(/\/openapi\/v1/);
  });
});
