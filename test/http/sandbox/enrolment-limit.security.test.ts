/** SPEC 15: enrolment without an admin token is limited per client address, and a forged X-Forwarded-For changes nothing. */
import { describe, expect, it } from 'vitest';
import type { SandboxConfig } from '../../../src/index.js';
import { memorySandbox } from '../../helpers.js';

async function live(config: Partial<SandboxConfig>) {
  const sandbox = await memorySandbox({ config });
  const server = await sandbox.listen(0, '127.0.0.1');
  const enroll = (headers: Record<string, string> = {}) =>
    fetch(`${server.url}/sandbox/v1/merchants`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: '{}' });
  return { sandbox, enroll };
}

describe('enrolment limit per client', () => {
  it('lets SANDBOX_ENROLL_LIMIT through a minute, then answers 429 with Retry-After; a forged X-Forwarded-For is ignored', async () => {
    const { sandbox, enroll } = await live({ enrollLimitPerMinute: 3 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await enroll({ 'X-Forwarded-For': `203.0.113.${i}` })).status);
      const refused = await enroll({ 'X-Forwarded-For': '198.51.100.7' });
      expect(statuses).toEqual([200, 200, 200]);
      expect(refused.status).toBe(429);
      const wait = Number(refused.headers.get('retry-after'));
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);
      const body = (await refused.json()) as { code: number; description: string };
      expect(body.code).toBe(429);
      expect(body.description).toMatch(/3 merchants per minute from one client; retry after \d+ s/);
      // Nothing was enrolled by the refused call: the merchant count is unchanged.
      expect((await sandbox.services.store.merchantIds()).length).toBe(2 + 3);
    } finally {
      await sandbox.close();
    }
  });

  it('with SANDBOX_TRUST_PROXY=1, counts the right-most X-Forwarded-For entry (the one the proxy wrote); entries forged on its left change nothing', async () => {
    const { sandbox, enroll } = await live({ enrollLimitPerMinute: 1, trustProxy: 1 });
    try {
      expect((await enroll({ 'X-Forwarded-For': '198.51.100.1, 203.0.113.1' })).status).toBe(200);
      const refused = await enroll({ 'X-Forwarded-For': '198.51.100.2, 203.0.113.1' });
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { description: string }).description).toMatch(/^Enrolment limit reached: 1 merchants per minute from one client; retry after \d+ s/);
      expect((await enroll({ 'X-Forwarded-For': '198.51.100.1, 203.0.113.2' })).status).toBe(200);
      expect((await sandbox.services.store.merchantIds()).length).toBe(2 + 2);
    } finally {
      await sandbox.close();
    }
  });

  it('does not apply with an admin token (the token is the gate)', async () => {
    const { sandbox, enroll } = await live({ enrollLimitPerMinute: 1, adminToken: 'tok-123' });
    try {
      for (let i = 0; i < 3; i++) expect((await enroll({ Authorization: 'Bearer tok-123' })).status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });
});
