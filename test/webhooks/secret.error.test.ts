/** POST /sandbox/v1/webhook/secret refused: each answer says what was wrong and what to do, and no secret changes. */
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { call, DEMO_PAYEE, expectEnvelope, sandboxPerTest } from '../support/http.js';

const storedSecret = async (sandbox: Sandbox) => (await sandbox.services.store.merchant(DEMO_PAYEE))?.webhookSecret;

describe('rotating the webhook secret: refusals', () => {
  const each = sandboxPerTest();

  it('no URL ever set: 402 naming the PUT that sets one, and no secret is made', async () => {
    const answer = await call(each.sandbox, 'POST', '/sandbox/v1/webhook/secret');
    expectEnvelope(answer, 402);
    expect(answer.body.description).toBe('No webhook URL is set: PUT /sandbox/v1/webhook {"url": "https://..."} sets one and answers its secret.');
    expect(answer.body).not.toHaveProperty('secret');
    expect(await storedSecret(each.sandbox)).toBeUndefined();
    expect((await call(each.sandbox, 'GET', '/sandbox/v1/webhook')).body.url).toBeNull();
  });

  it('webhooks turned off: 402, and the secret kept for retries is not replaced', async () => {
    expect((await call(each.sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: 'https://hooks.example.test/payreq' } })).status).toBe(200);
    expect((await call(each.sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: null } })).status).toBe(200);
    const kept = await storedSecret(each.sandbox);
    expect(kept).toMatch(/^whsec_/);
    const answer = await call(each.sandbox, 'POST', '/sandbox/v1/webhook/secret');
    expectEnvelope(answer, 402);
    expect(answer.body.description).toMatch(/^No webhook URL is set/);
    expect(await storedSecret(each.sandbox)).toBe(kept);
  });

  it('without a key, or with an unknown one: 401, and the secret is not replaced', async () => {
    expect((await call(each.sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: 'https://hooks.example.test/payreq' } })).status).toBe(200);
    const kept = await storedSecret(each.sandbox);
    for (const key of [null, 'sk_sandbox_not_a_key']) {
      const answer = await call(each.sandbox, 'POST', '/sandbox/v1/webhook/secret', { key });
      expectEnvelope(answer, 401);
      expect(answer.body.description).toMatch(/Service-Api-Key/);
      expect(answer.text).not.toMatch(/whsec_/);
    }
    expect(await storedSecret(each.sandbox)).toBe(kept);
  });

  it('a malformed Idempotency-Key: 400 naming the rule, and the secret is not replaced', async () => {
    expect((await call(each.sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: 'https://hooks.example.test/payreq' } })).status).toBe(200);
    const kept = await storedSecret(each.sandbox);
    const answer = await call(each.sandbox, 'POST', '/sandbox/v1/webhook/secret', { headers: { 'Idempotency-Key': 'k'.repeat(256) } });
    expectEnvelope(answer, 400);
    expect(answer.body.description).toMatch(/Idempotency-Key must be 1 to 255 printable ASCII characters/);
    expect(await storedSecret(each.sandbox)).toBe(kept);
  });

  it('PUT with a bad URL: 400, and neither the URL nor the secret changes', async () => {
    expect((await call(each.sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: 'https://hooks.example.test/payreq' } })).status).toBe(200);
    const kept = await storedSecret(each.sandbox);
    const answer = await call(each.sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: 'ftp://hooks.example.test/' } });
    expectEnvelope(answer, 400);
    expect(answer.body).not.toHaveProperty('secret');
    expect(await storedSecret(each.sandbox)).toBe(kept);
    expect((await call(each.sandbox, 'GET', '/sandbox/v1/webhook')).body.url).toBe('https://hooks.example.test/payreq');
  });
});
