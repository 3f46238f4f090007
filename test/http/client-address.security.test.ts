/**
 * SPEC 19: behind n proxies (SANDBOX_TRUST_PROXY=<n>) the client address is the n-th
 * X-Forwarded-For entry from the right. HAProxy's `option forwardfor` and nginx's
 * `$proxy_add_x_forwarded_for` append to what the client sent, so entries forged on the left
 * must not open a fresh enrolment allowance, over real HTTP.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../src/serve-command.js';
import { forwardedClient } from '../../src/http/client-address.js';
import type { SandboxConfig } from '../../src/index.js';
import { CLI } from '../support/processes.js';
import { memorySandbox } from '../helpers.js';

async function live(config: Partial<SandboxConfig>) {
  const sandbox = await memorySandbox({ config });
  const server = await sandbox.listen(0, '127.0.0.1');
  const enroll = async (forwardedFor?: string) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', ...(forwardedFor === undefined ? {} : { 'X-Forwarded-For': forwardedFor }) };
    const answer = await fetch(`${server.url}/sandbox/v1/merchants`, { method: 'POST', headers, body: '{}' });
    return { status: answer.status, body: (await answer.json()) as { code: number; description: string } };
  };
  const merchants = async () => (await sandbox.services.store.merchantIds()).length;
  return { sandbox, enroll, merchants };
}

describe('SANDBOX_TRUST_PROXY=2 (a balancer in front of a proxy)', () => {
  it('counts the second entry from the right: whatever a client forges on the left, its second enrolment is refused and nothing is enrolled', async () => {
    const { sandbox, enroll, merchants } = await live({ enrollLimitPerMinute: 1, trustProxy: 2 });
    try {
      // client 203.0.113.9 -> balancer (appends it) -> proxy 10.0.0.2 (appends the balancer) -> sandbox
      expect((await enroll('203.0.113.9, 10.0.0.1')).status).toBe(200);
      const before = await merchants();
      for (const forged of ['198.51.100.1, 203.0.113.9, 10.0.0.1', '1.1.1.1, 2.2.2.2, 203.0.113.9, 10.0.0.1', 'garbage, , 203.0.113.9, 10.0.0.1']) {
        const refused = await enroll(forged);
        expect(refused.status, forged).toBe(429);
        expect(refused.body.code).toBe(429);
        expect(refused.body.description).toMatch(/^Enrolment limit reached: 1 merchants per minute from one client; retry after \d+ s \(see Retry-After\)/);
      }
      expect(await merchants()).toBe(before);
      // Another client behind the same balancer is another address.
      expect((await enroll('203.0.113.10, 10.0.0.1')).status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });

  it('with fewer entries than proxies, takes the left-most present; with none, the socket', async () => {
    const { sandbox, enroll } = await live({ enrollLimitPerMinute: 1, trustProxy: 2 });
    try {
      expect((await enroll('203.0.113.20')).status).toBe(200);
      expect((await enroll('203.0.113.20')).status).toBe(429);
      expect((await enroll()).status).toBe(200); // the socket, 127.0.0.1
      expect((await enroll('')).status).toBe(429); // an empty header is no header
    } finally {
      await sandbox.close();
    }
  });
});

describe('SANDBOX_TRUST_PROXY=0 (the default)', () => {
  it('ignores X-Forwarded-For: the socket is the client', async () => {
    const { sandbox, enroll, merchants } = await live({ enrollLimitPerMinute: 1, trustProxy: 0 });
    try {
      expect((await enroll('203.0.113.1')).status).toBe(200);
      expect((await enroll('203.0.113.2')).status).toBe(429);
      expect(await merchants()).toBe(2 + 1);
    } finally {
      await sandbox.close();
    }
  });
});

describe('forwardedClient', () => {
  it.each([
    ['203.0.113.1', 1, '203.0.113.1'],
    ['forged, 203.0.113.1', 1, '203.0.113.1'],
    ['forged, 203.0.113.1, 10.0.0.1', 2, '203.0.113.1'],
    ['203.0.113.1', 3, '203.0.113.1'],
    [' , ', 1, undefined],
    [undefined, 1, undefined],
  ] as const)('%j behind %i -> %s', (header, proxies, expected) => {
    expect(forwardedClient(header, proxies)).toBe(expected);
  });
});

describe('SANDBOX_TRUST_PROXY values', () => {
  it('reads a whole number of proxies; unset is 0', () => {
    expect(configFromEnv({ SANDBOX_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(configFromEnv({ SANDBOX_TRUST_PROXY: '0' }).trustProxy).toBe(0);
    expect(configFromEnv({}).trustProxy).toBe(0);
  });

  it.each(['-1', '1.5', 'true', 'yes'])('refuses %s at start with a message naming the variable and what it takes, and serves nothing', async (value) => {
    const failure = await promisify(execFile)(process.execPath, [CLI, 'serve', '--memory', '--port', '0'], { env: { ...process.env, SANDBOX_TRUST_PROXY: value }, timeout: 20_000 }).then(
      () => undefined,
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr.trim()).toBe(
      `SANDBOX_TRUST_PROXY must be the number of proxies in front of the sandbox that append to X-Forwarded-For: a whole number, 0 (the default) for none, 1 for one, got ${value}`,
    );
    expect(failure?.stdout).not.toContain('listening');
  });
});
