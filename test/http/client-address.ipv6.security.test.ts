/**
 * SPEC 26: an IPv6 /64 is one client for every per-client limit (enrolment, wrong admin tokens,
 * connections); an IPv4 address is one, an IPv4-mapped IPv6 address counts as its IPv4. The
 * grouping key itself, then the limits through X-Forwarded-For (SANDBOX_TRUST_PROXY=1).
 */
import { describe, expect, it } from 'vitest';
import type { SandboxConfig } from '../../src/index.js';
import { clientNetwork } from '../../src/http/client-address.js';
import { memorySandbox } from '../helpers.js';

describe('clientNetwork', () => {
  it.each([
    ['192.0.2.1', '192.0.2.1'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['::FFFF:c000:0201', '192.0.2.1'],
    ['2001:db8:1::1', '2001:db8:1:0::/64'],
    ['2001:0DB8:0001:0000:ffff:ffff:ffff:ffff', '2001:db8:1:0::/64'],
    ['2001:db8:1:1::1', '2001:db8:1:1::/64'],
    ['fe80::1%lo', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['in-process', 'in-process'],
    ['unknown', 'unknown'],
  ])('%s counts as %s', (address, client) => expect(clientNetwork(address)).toBe(client));
});

async function live(config: Partial<SandboxConfig>) {
  const sandbox = await memorySandbox({ config: { trustProxy: 1, ...config } });
  const enroll = async (from: string, headers: Record<string, string> = {}) => {
    const answer = await sandbox.app.request('/sandbox/v1/merchants', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': from, ...headers }, body: '{}' });
    return { status: answer.status, body: (await answer.json()) as { code: number; description: string } };
  };
  return { sandbox, enroll };
}

describe('per-client limits count an IPv6 /64 as one client', () => {
  it('enrolment: 3 a minute from one /64 whatever address of it asks; another /64 and an IPv4 have their own', async () => {
    const { sandbox, enroll } = await live({ enrollLimitPerMinute: 3 });
    try {
      const statuses = [];
      for (let i = 1; i <= 6; i++) statuses.push((await enroll(`2001:db8:1::${i.toString(16)}:${i}`)).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
      const refused = await enroll('2001:db8:1:0:ffff:ffff:ffff:fffe');
      expect(refused.body.description).toMatch(/^Enrolment limit reached: 3 merchants per minute from one client/);
      expect((await enroll('2001:db8:1:1::1')).status).toBe(200);
      expect((await enroll('192.0.2.1')).status).toBe(200);
      expect((await sandbox.services.store.merchantIds()).length).toBeGreaterThanOrEqual(5);
    } finally {
      await sandbox.close();
    }
  });

  it('wrong admin tokens: 10 a minute from one /64, spread over its addresses; then even the right token waits, another /64 does not', async () => {
    const { sandbox, enroll } = await live({ adminToken: 'the-right-token-0123456789' });
    try {
      const wrong = [];
      for (let i = 1; i <= 11; i++) wrong.push((await enroll(`2001:db8:5::${i}`, { Authorization: 'Bearer wrong' })).status);
      expect(wrong).toEqual([...Array<number>(10).fill(401), 429]);
      expect((await enroll('2001:db8:5::ffff', { Authorization: 'Bearer the-right-token-0123456789' })).status).toBe(429);
      expect((await enroll('2001:db8:6::1', { Authorization: 'Bearer the-right-token-0123456789' })).status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });
});
