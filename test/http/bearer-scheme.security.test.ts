/**
 * The Bearer scheme is read as RFC 7235 says (its name in any case, then spaces) by the one reader
 * both token checks use: the admin token of enrolment and the metrics token. Anything else is refused alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerToken } from '../../src/http/bearer.js';
import type { Sandbox } from '../../src/index.js';
import { memorySandbox } from '../helpers.js';

const ADMIN = 'admin-secret-token-123';
const METRICS = 'metrics-secret-token-456';
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await memorySandbox({ config: { adminToken: ADMIN, metricsToken: METRICS } });
});
afterAll(() => sandbox.close());

const enroll = async (authorization: string) =>
  (await sandbox.fetch(new Request('http://sandbox.test/sandbox/v1/merchants', { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: authorization }, body: '{}' }))).status;
const scrape = async (authorization: string) => (await sandbox.fetch(new Request('http://sandbox.test/metrics', { headers: { Authorization: authorization } }))).status;

describe('the Bearer scheme, case-insensitively, in one place', () => {
  it.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])('%s <token> is taken by enrolment and by /metrics', async (scheme) => {
    expect(await enroll(`${scheme} ${ADMIN}`)).toBe(200);
    expect(await scrape(`${scheme} ${METRICS}`)).toBe(200);
  });

  it('takes several spaces after the scheme', async () => {
    expect(await enroll(`Bearer   ${ADMIN}`)).toBe(200);
    expect(await scrape(`bearer  ${METRICS}`)).toBe(200);
  });

  it.each([`Basic ${ADMIN}`, `Bearer${ADMIN}`, 'Bearer ', 'Bearer', ADMIN, `Token ${ADMIN}`])('refuses %j at both, and enrols nobody', async (authorization) => {
    const before = (await sandbox.services.store.merchantIds()).length;
    expect(await enroll(authorization)).toBe(401);
    expect(await scrape(authorization.replace(ADMIN, METRICS))).toBe(401);
    expect((await sandbox.services.store.merchantIds()).length).toBe(before);
  });

  it('reads the token of one header', () => {
    expect(bearerToken('BeArEr abc.def~')).toBe('abc.def~');
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken('Basic abc')).toBeUndefined();
  });
});
