import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../../src/domain/signature.js';
import type { Sandbox } from '../../../src/index.js';
import { call, createBody, expectEnvelope, quietSandbox, SIGNED_KEY, SIGNED_PAYEE, SIGNED_SALT, toAnswer } from '../../support/http.js';
import type { Answer } from '../../support/http.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await quietSandbox();
});
afterAll(() => sandbox.close());

/** Drives every route a merchant can call, collecting every answer. */
async function everyAnswer(key: string, payee: string, salt: string): Promise<Answer[]> {
  const answers: Answer[] = [];
  const send = async (method: string, path: string, body?: unknown) => {
    const answer = await call(sandbox, method, path, { key, ...(body === undefined ? {} : { body }) });
    answers.push(answer);
    return answer;
  };
  const signed = (overrides: Record<string, unknown> = {}) => {
    const body = createBody({ payee, metadata: { salt_hint: 'none' }, ...overrides });
    return { ...body, sign_type: 'SHA512', sign: signBody(body, salt) };
  };
  const a = (await send('POST', '/openapi/v1/payments/payment', signed())).body;
  const b = (await send('POST', '/v1/payments/payment', signed({ payer: 'PAYER_PAYS' }))).body;
  const c = (await send('POST', '/openapi/v1/payments/payment', signed())).body;
  await send('POST', '/openapi/v1/payments/payment', { ...createBody({ payee }), sign_type: 'SHA512', sign: 'a'.repeat(128) });
  await send('POST', '/openapi/v1/payments/payment', createBody({ payee }));
  // A body changed after signing: a mismatch, whose answer shows the string signed.
  await send('POST', '/openapi/v1/payments/payment', { ...signed(), amount: 99 });
  await send('POST', `/openapi/v1/payments/payment/${a.payment_id}/assign`, { payer: 'p1' });
  await send('GET', `/openapi/v1/payments/payment/${a.payment_id}`);
  await send('POST', `/openapi/v1/payments/payment/${a.payment_id}/void`, { reason: 'wrong state' });
  await send('POST', `/openapi/v1/payments/payment/${a.payment_id}/cancel`, { reason: 'r' });
  await send('POST', `/v1/payments/payment/${b.payment_id}/void`, { reason: 'r' });
  await send('POST', `/sandbox/v1/payments/${c.payment_id}/pickup`);
  await send('POST', `/sandbox/v1/payments/${c.payment_id}/pay`, { paid_currency_code: 'USD' });
  await send('POST', `/sandbox/v1/payments/${c.payment_id}/settle`);
  await send('POST', `/sandbox/v1/payments/${c.payment_id}/fail`);
  await send('POST', `/sandbox/v1/payments/${c.payment_id}/expire`);
  await send('POST', '/sandbox/v1/settle');
  await send('GET', '/sandbox/v1/payments');
  await send('GET', `/sandbox/v1/payments/${c.payment_id}`);
  await send('GET', `/sandbox/v1/payments/${c.payment_id}/events`);
  await send('GET', '/sandbox/v1/clock');
  await send('POST', '/sandbox/v1/clock/advance', { seconds: 1000 });
  await send('POST', '/sandbox/v1/tools/sign', createBody({ payee }));
  await send('GET', '/sandbox/v1/codes');
  await send('GET', '/sandbox/v1/magic');
  await send('GET', '/sandbox/v1/requests');
  await send('GET', '/sandbox/v1/faults');
  await send('GET', '/healthz');
  await send('GET', '/openapi.json');
  await send('GET', '/sandbox');
  await send('GET', '/nowhere');
  await send('DELETE', '/openapi/v1/payments/payment');
  answers.push(await toAnswer(await sandbox.fetch(new Request(`${c.qr_data.image_url}?format=svg`))));
  answers.push(await toAnswer(await sandbox.fetch(new Request(c.qr_data.checkout_url))));
  await send('POST', '/sandbox/v1/reset');
  return answers;
}

function leaks(answers: readonly Answer[], secret: string): string[] {
  return answers
    .filter((a) => a.text.includes(secret) || [...a.headers.values()].some((v) => v.includes(secret)))
    .map((a) => `${a.status} ${a.text.slice(0, 120)}`);
}

describe('the signing salt', () => {
  it('is answered by enrolment, and by nothing else a merchant can call', async () => {
    const enrolled = await call(sandbox, 'POST', '/sandbox/v1/merchants', { key: null, body: { require_signature: true } });
    expectEnvelope(enrolled, 200);
    const salt = enrolled.body.signing_salt as string;
    expect(enrolled.text).toContain(salt);
    const answers = await everyAnswer(enrolled.body.api_key, enrolled.body.payee_id, salt);
    expect(answers.length).toBeGreaterThan(30);
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(20);
    expect(leaks(answers, salt)).toEqual([]);
  });

  it("of the signed demo merchant never appears in that merchant's answers", async () => {
    const answers = await everyAnswer(SIGNED_KEY, SIGNED_PAYEE, SIGNED_SALT);
    const mismatch = answers.find((a) => a.status === 401 && /mismatch/.test(a.body?.description ?? ''));
    expect(mismatch?.body.string_to_sign).toMatch(/&<signing_salt>$/);
    expect(leaks(answers, SIGNED_SALT)).toEqual([]);
  });

  it('is not shown to another merchant enrolling, nor in its answers', async () => {
    const first = await call(sandbox, 'POST', '/sandbox/v1/merchants', { key: null, body: {} });
    const second = await call(sandbox, 'POST', '/sandbox/v1/merchants', { key: null, body: {} });
    expect(second.text).not.toContain(first.body.signing_salt);
    expect(second.body.signing_salt).not.toBe(first.body.signing_salt);
    expect(second.body.api_key).not.toBe(first.body.api_key);
    const answers = await everyAnswer(second.body.api_key, second.body.payee_id, second.body.signing_salt);
    expect(leaks(answers, first.body.signing_salt)).toEqual([]);
    expect(leaks(answers, first.body.api_key)).toEqual([]);
  });
});

describe('identifiers answered over HTTP', () => {
  it('have the documented formats and are all distinct', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const answer = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody() });
      expectEnvelope(answer, 200);
      expect(answer.body.payment_id).toMatch(/^pay_[0-9A-Za-z]{22}$/);
      expect(answer.body.payment_token).toMatch(/^ptok_[0-9A-Za-z_-]{32}$/);
      expect(answer.body.payment_code).toMatch(/^[0-9A-HJKMNP-TV-Z]{12}$/);
      for (const v of [answer.body.payment_id, answer.body.payment_token, answer.body.payment_code]) {
        expect(seen.has(v)).toBe(false);
        seen.add(v);
      }
    }
  });

  it('a payment id is not its token: the token alone is what the payer page and QR image take', async () => {
    const answer = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody() });
    const byId = await sandbox.fetch(new Request(`http://sandbox.test/sandbox/v1/qr/${answer.body.payment_id}`));
    expectEnvelope(await toAnswer(byId), 404);
  });
});
