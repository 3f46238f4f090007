/**
 * DELETE /sandbox/v1/merchant and isolation: a key deletes its own merchant only; another
 * merchant cannot tell that anything happened; afterwards the deleted key, its payment ids and
 * its payer-page tokens answer exactly like ones that never existed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { call, createPayment, expectEnvelope, quietSandbox, stateOf } from '../../support/http.js';
import type { Answer } from '../../support/http.js';
import { DEMO_KEY, DEMO_PAYEE, createBody } from '../../helpers.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** What another merchant sees of the sandbox: its payments with their events and clock, its journal, faults and deliveries. */
async function seenBy(s: Sandbox, key: string): Promise<string> {
  // Without stateOf's first line, the number of merchants: that is the sandbox's, not the merchant's.
  const parts = [(await stateOf(s, [key])).replace(/^merchants=\d+\n/, '')];
  for (const path of ['/sandbox/v1/faults', '/sandbox/v1/webhook/deliveries']) parts.push((await call(s, 'GET', path, { key })).text);
  // Its profile without its storage figures: the journal entries of these very reads add to them.
  const { storage: _storage, description: _description, ...profile } = (await call(s, 'GET', '/sandbox/v1/merchant', { key })).body;
  parts.push(JSON.stringify(profile));
  // The journal without the reads just made to look at it.
  const journal = (await call(s, 'GET', '/sandbox/v1/requests?limit=500', { key })).body.requests as { method: string; path: string; status: number }[];
  parts.push(JSON.stringify(journal.filter((e) => e.method !== 'GET').map((e) => [e.method, e.path, e.status])));
  return parts.join('\n');
}

/** An answer's text with `from` written as `to` (and its page's nonce, new each time, left out): a deleted id must answer as an unknown one does. */
const as = (answer: Answer, from: string, to: string) => `${answer.status} ${answer.text.split(from).join(to)}`.replace(/nonce="[^"]*"/g, 'nonce');

describe('DELETE /sandbox/v1/merchant and other merchants', () => {
  it("deletes the key's own merchant only: another merchant's payments, clock, faults and journal are as they were", async () => {
    sandbox = await quietSandbox();
    const other = await sandbox.control.enroll({ name: 'Leaving Shop' });
    await createPayment(sandbox, { payee: other.payeeId }, { key: other.apiKey });
    const kept = await createPayment(sandbox);
    expectEnvelope(await call(sandbox, 'POST', '/sandbox/v1/faults', { body: { match: { method: 'GET', path: '/v1/never-called' }, fault: 'latency=1' } }), 200);
    expectEnvelope(await call(sandbox, 'POST', '/sandbox/v1/clock/advance', { body: { seconds: 90 } }), 200);
    const before = await seenBy(sandbox, DEMO_KEY);

    // A payee named in the body or the query changes nothing: the key alone decides.
    const answer = await call(sandbox, 'DELETE', `/sandbox/v1/merchant?payee_id=${DEMO_PAYEE}`, { key: other.apiKey, body: { payee_id: DEMO_PAYEE } });
    expectEnvelope(answer, 200);
    expect(answer.body.payee_id).toBe(other.payeeId);

    expect(await seenBy(sandbox, DEMO_KEY)).toBe(before);
    expectEnvelope(await call(sandbox, 'GET', `/openapi/v1/payments/payment/${kept.payment_id}`), 200);
    // Nothing in the other merchant's journal tells of the deletion.
    const journal = await call(sandbox, 'GET', '/sandbox/v1/requests?limit=500');
    expect(journal.text).not.toContain(other.payeeId);
    expect(journal.text).not.toContain('DELETE');
  });

  it('the deleted key answers every route exactly as an unknown key does', async () => {
    sandbox = await quietSandbox();
    const gone = await sandbox.control.enroll();
    const p = await createPayment(sandbox, { payee: gone.payeeId }, { key: gone.apiKey });
    expectEnvelope(await call(sandbox, 'DELETE', '/sandbox/v1/merchant', { key: gone.apiKey }), 200);

    const routes: [string, string, unknown?][] = [
      ['GET', '/sandbox/v1/merchant'],
      ['DELETE', '/sandbox/v1/merchant'],
      ['GET', `/openapi/v1/payments/payment/${p.payment_id}`],
      ['POST', '/openapi/v1/payments/payment', createBody({ payee: gone.payeeId })],
      ['POST', `/sandbox/v1/payments/${p.payment_id}/pay`],
      ['GET', '/sandbox/v1/payments'],
      ['GET', '/sandbox/v1/requests'],
      ['POST', '/sandbox/v1/reset'],
    ];
    for (const [method, path, body] of routes) {
      const options = body === undefined ? {} : { body };
      const deleted = await call(sandbox, method, path, { ...options, key: gone.apiKey });
      const unknown = await call(sandbox, method, path, { ...options, key: 'sk_sandbox_never_issued' });
      expectEnvelope(deleted, 401);
      expect(`${deleted.status} ${deleted.text}`, `${method} ${path}`).toBe(`${unknown.status} ${unknown.text}`);
    }
    expect(await sandbox.services.store.merchantIds()).not.toContain(gone.payeeId);
  });

  it("its payments' ids, payer pages and QR images answer 404 exactly like ones never issued", async () => {
    sandbox = await quietSandbox();
    const gone = await sandbox.control.enroll();
    const p = await createPayment(sandbox, { payee: gone.payeeId }, { key: gone.apiKey });
    const token = p.payment_token;
    const fake = `ptok_${'x'.repeat(token.length - 5)}`;
    expect((await call(sandbox, 'GET', `/sandbox/pay/${token}`, { key: null })).status).toBe(200);
    expectEnvelope(await call(sandbox, 'DELETE', '/sandbox/v1/merchant', { key: gone.apiKey }), 200);

    for (const [method, path] of [['GET', '/sandbox/pay/{t}'], ['POST', '/sandbox/pay/{t}/pay'], ['POST', '/sandbox/pay/{t}/decline'], ['GET', '/sandbox/v1/qr/{t}'], ['GET', '/sandbox/v1/qr/{t}?format=svg']] as const) {
      const deleted = await call(sandbox, method, path.replace('{t}', token), { key: null });
      const never = await call(sandbox, method, path.replace('{t}', fake), { key: null });
      expect(deleted.status, path).toBe(404);
      expect(as(deleted, token, fake), path).toBe(as(never, fake, fake));
    }
    // Nor can another merchant reach them by id.
    const byId = await call(sandbox, 'GET', `/openapi/v1/payments/payment/${p.payment_id}`);
    const unknownId = await call(sandbox, 'GET', '/openapi/v1/payments/payment/pay_NeverIssued000000000000');
    expectEnvelope(byId, 404);
    expect(as(byId, p.payment_id, 'pay_NeverIssued000000000000')).toBe(as(unknownId, '', ''));
  });

  it('the answer never carries the key or the signing salt', async () => {
    sandbox = await quietSandbox();
    const gone = await sandbox.control.enroll();
    const answer = await call(sandbox, 'DELETE', '/sandbox/v1/merchant', { key: gone.apiKey });
    expectEnvelope(answer, 200);
    expect(answer.text).not.toContain(gone.apiKey);
    expect(answer.text).not.toContain(gone.signingSalt);
  });

  it('the admin token is not a key: it deletes nobody', async () => {
    sandbox = await quietSandbox({ config: { adminToken: 'admin-secret-123' } });
    const before = await stateOf(sandbox);
    const answer = await call(sandbox, 'DELETE', '/sandbox/v1/merchant', { key: null, headers: { Authorization: 'Bearer admin-secret-123' } });
    expectEnvelope(answer, 401);
    expect(answer.text).not.toContain('admin-secret-123');
    expect(await stateOf(sandbox)).toBe(before);
    expect(await sandbox.services.store.merchantIds()).toHaveLength(2);
  });
});
