import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { call, expectEnvelope, quietSandbox, stateOf } from '../../support/http.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('POST /sandbox/v1/merchants behind SANDBOX_ADMIN_TOKEN', () => {
  it.each([
    ['no Authorization header', {}],
    ['a wrong token', { Authorization: 'Bearer wrong' }],
    ['the token with a suffix', { Authorization: 'Bearer admin-secret-1234' }],
    ['the token without "Bearer "', { Authorization: 'admin-secret-123' }],
    ['another scheme', { Authorization: 'Basic admin-secret-123' }],
    ['a valid API key instead', { 'Service-Api-Key': 'sk_sandbox_demo_merchant_key' }],
  ])('refuses %s with 401 and enrols nobody', async (_name, headers) => {
    sandbox = await quietSandbox({ config: { adminToken: 'admin-secret-123' } });
    const before = await stateOf(sandbox);
    const answer = await call(sandbox, 'POST', '/sandbox/v1/merchants', { key: null, body: { name: 'Intruder' }, headers });
    expectEnvelope(answer, 401);
    expect(answer.body.description).toContain('Bearer');
    expect(answer.text).not.toContain('admin-secret-123');
    expect(await stateOf(sandbox)).toBe(before);
  });

  it('without a token configured, anyone may enrol (self-service)', async () => {
    sandbox = await quietSandbox();
    expectEnvelope(await call(sandbox, 'POST', '/sandbox/v1/merchants', { key: null, body: {} }), 200);
  });
});
