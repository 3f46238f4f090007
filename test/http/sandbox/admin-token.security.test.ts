/**
 * SPEC 18: the admin token is compared in constant time (SHA-256 digests, so not even its length
 * shows), and wrong tokens are limited per client address: past 10 a minute every attempt of that
 * client answers 429 with Retry-After, the right token too (else the answer would tell it), while
 * other clients go on. Over a real listening server: the limit counts socket or proxy addresses.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sameSecret } from '../../../src/domain/ids.js';
import type { Sandbox } from '../../../src/index.js';
import { ADMIN_TOKEN_ATTEMPTS_PER_MINUTE } from '../../../src/http/sandbox/merchants/enrolment-gate.js';
import { memorySandbox } from '../../helpers.js';

const TOKEN = 'admin-secret-token-123';
let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function live(trustProxy = false) {
  sandbox = await memorySandbox({ config: { adminToken: TOKEN, trustProxy } });
  const server = await sandbox.listen(0, '127.0.0.1');
  const enroll = async (token: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${server.url}/sandbox/v1/merchants`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, ...headers },
      body: '{}',
    });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), text: await response.text() };
  };
  const merchants = async () => (await sandbox!.services.store.merchantIds()).length;
  return { enroll, merchants };
}

describe('wrong admin tokens are limited per client', () => {
  it('answers 401 to the first 10 wrong tokens of a minute, then 429 with Retry-After to any token of that client; nothing is enrolled', async () => {
    const { enroll, merchants } = await live();
    const before = await merchants();
    const statuses: number[] = [];
    for (let i = 0; i < ADMIN_TOKEN_ATTEMPTS_PER_MINUTE; i++) statuses.push((await enroll(`guess-${i}`)).status);
    expect(statuses).toEqual(Array(ADMIN_TOKEN_ATTEMPTS_PER_MINUTE).fill(401));

    for (const token of ['guess-next', TOKEN]) {
      const refused = await enroll(token);
      expect(refused.status).toBe(429);
      const wait = Number(refused.retryAfter);
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);
      const body = JSON.parse(refused.text) as { code: number; description: string };
      expect(body.code).toBe(429);
      expect(body.description).toBe(
        `Too many wrong admin tokens: 10 a minute from one client; retry after ${wait} s (see Retry-After) with Authorization: Bearer <SANDBOX_ADMIN_TOKEN>.`,
      );
      expect(refused.text).not.toContain(TOKEN);
    }
    expect(await merchants()).toBe(before);
  });

  it('counts per client address: another client (behind a trusted proxy) still enrolls with the right token', async () => {
    const { enroll, merchants } = await live(true);
    const before = await merchants();
    const attacker = { 'X-Forwarded-For': '203.0.113.66' };
    for (let i = 0; i < ADMIN_TOKEN_ATTEMPTS_PER_MINUTE; i++) expect((await enroll(`guess-${i}`, attacker)).status).toBe(401);
    expect((await enroll(TOKEN, attacker)).status).toBe(429);
    expect((await enroll(TOKEN, { 'X-Forwarded-For': '198.51.100.7' })).status).toBe(200);
    expect(await merchants()).toBe(before + 1);
  });

  it('the right token is not counted: an admin enrolls more than 10 a minute', async () => {
    const { enroll } = await live();
    for (let i = 0; i < ADMIN_TOKEN_ATTEMPTS_PER_MINUTE + 2; i++) expect((await enroll(TOKEN)).status).toBe(200);
  });
});

describe('sameSecret', () => {
  it('compares tokens of any lengths without throwing (timingSafeEqual alone throws on unequal lengths)', () => {
    expect(sameSecret(TOKEN, TOKEN)).toBe(true);
    expect(sameSecret('', TOKEN)).toBe(false);
    expect(sameSecret(`${TOKEN}x`, TOKEN)).toBe(false);
    expect(sameSecret(TOKEN.slice(0, -1), TOKEN)).toBe(false);
    expect(sameSecret('ä'.repeat(5000), TOKEN)).toBe(false);
  });
});
