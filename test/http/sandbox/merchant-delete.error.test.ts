/** DELETE /sandbox/v1/merchant refused: no key, an unknown key, a second time, another method; nothing changes. */
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { StoreUnavailableError } from '../../../src/store/unavailable.js';
import { call, createPayment, expectEnvelope, quietSandbox, stateOf } from '../../support/http.js';
import { DEMO_KEY } from '../../helpers.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('DELETE /sandbox/v1/merchant refused', () => {
  it.each([
    ['no Service-Api-Key', null],
    ['an unknown key', 'sk_sandbox_nobody'],
    ['a key in the wrong case', DEMO_KEY.toUpperCase()],
    ['an empty key', ''],
  ])('%s: 401, and no merchant is deleted', async (_name, key) => {
    sandbox = await quietSandbox();
    await createPayment(sandbox);
    const before = await stateOf(sandbox);
    const answer = await call(sandbox, 'DELETE', '/sandbox/v1/merchant', { key });
    expectEnvelope(answer, 401);
    expect(answer.body.description).toMatch(/Service-Api-Key/);
    expect(await stateOf(sandbox)).toBe(before);
  });

  it('a second DELETE with the same key: 401, like an unknown key', async () => {
    sandbox = await quietSandbox();
    const enrolled = await sandbox.control.enroll();
    expectEnvelope(await call(sandbox, 'DELETE', '/sandbox/v1/merchant', { key: enrolled.apiKey }), 200);
    const again = await call(sandbox, 'DELETE', '/sandbox/v1/merchant', { key: enrolled.apiKey });
    const unknown = await call(sandbox, 'DELETE', '/sandbox/v1/merchant', { key: 'sk_sandbox_nobody' });
    expectEnvelope(again, 401);
    expect(again.text).toBe(unknown.text);
  });

  it('other methods on /sandbox/v1/merchant: 405 naming DELETE among the allowed ones, nothing deleted', async () => {
    sandbox = await quietSandbox();
    for (const method of ['POST', 'PUT', 'PATCH']) {
      const answer = await call(sandbox, method, '/sandbox/v1/merchant', { body: {} });
      expectEnvelope(answer, 405);
      expect(answer.headers.get('allow')).toBe('DELETE, GET, HEAD');
    }
    expectEnvelope(await call(sandbox, 'GET', '/sandbox/v1/merchant'), 200);
  });

  it('DELETE /sandbox/v1/merchants (the enrolment path) is not a way to delete: 405', async () => {
    sandbox = await quietSandbox();
    const answer = await call(sandbox, 'DELETE', '/sandbox/v1/merchants');
    expectEnvelope(answer, 405);
    expect(answer.headers.get('allow')).toBe('POST');
    expectEnvelope(await call(sandbox, 'GET', '/sandbox/v1/merchant'), 200);
  });

  it('the store failing mid-delete (a full disk): a 503 envelope that names no internals, and the merchant is still there', async () => {
    sandbox = await quietSandbox();
    const { store } = sandbox.services;
    const real = store.deleteMerchant.bind(store);
    store.deleteMerchant = async () => {
      throw new StoreUnavailableError('the data directory /srv is full (ENOSPC)', false, 'The sandbox could not write its data file (ENOSPC): nothing was changed. Free disk space or check the data directory, then retry.');
    };
    try {
      const answer = await call(sandbox, 'DELETE', '/sandbox/v1/merchant');
      expectEnvelope(answer, 503);
      expect(answer.body.description).toMatch(/could not write its data file \(ENOSPC\)/);
      expect(answer.text).not.toContain('/srv');
    } finally {
      store.deleteMerchant = real;
    }
    expectEnvelope(await call(sandbox, 'GET', '/sandbox/v1/merchant'), 200);
  });
});
