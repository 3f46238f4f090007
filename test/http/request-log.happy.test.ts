/**
 * Logs an operator can read (SPEC 19, issue 17): a balancer's probes of /livez, /readyz and
 * /healthz write no request line unless SANDBOX_LOG_HEALTH=on, and each request line names the
 * client address the sandbox decided on (`client`). The log is a real pino logger writing to memory.
 */
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../src/serve-command.js';
import type { SandboxConfig } from '../../src/index.js';
import { DEMO_KEY, memorySandbox } from '../helpers.js';
import { capturedLog } from '../support/log.js';

async function liveWithLog(config: Partial<SandboxConfig> = {}) {
  const { log, requestLines } = capturedLog();
  const sandbox = await memorySandbox({ log, config });
  const server = await sandbox.listen(0, '127.0.0.1');
  return { sandbox, server, logged: requestLines };
}

describe('request lines', () => {
  it('are not written for /livez, /readyz, /healthz (GET or HEAD) by default; other requests are', async () => {
    const { sandbox, server, logged } = await liveWithLog();
    try {
      for (const path of ['/livez', '/readyz', '/healthz']) {
        for (const method of ['GET', 'HEAD']) expect((await fetch(`${server.url}${path}`, { method })).status).toBe(200);
      }
      await fetch(`${server.url}/sandbox/v1/payments`, { headers: { 'Service-Api-Key': DEMO_KEY } });
      const lines = await logged();
      expect(lines.map((l) => l.route)).toEqual(['/sandbox/v1/payments']);
    } finally {
      await sandbox.close();
    }
  });

  it('are written for them with SANDBOX_LOG_HEALTH=on (logHealthChecks), a 503 included', async () => {
    const { sandbox, server, logged } = await liveWithLog({ logHealthChecks: true });
    try {
      await fetch(`${server.url}/livez`);
      sandbox.services.drain.start('SIGTERM received');
      await fetch(`${server.url}/readyz`);
      await fetch(`${server.url}/healthz`);
      const lines = await logged();
      expect(lines.map((l) => [l.route, l.status])).toEqual([['/livez', 200], ['/readyz', 503], ['/healthz', 503]]);
    } finally {
      await sandbox.close();
    }
  });

  it("carry the socket's address as client, and never the key", async () => {
    const { sandbox, server, logged } = await liveWithLog();
    try {
      await fetch(`${server.url}/sandbox/v1/payments`, { headers: { 'Service-Api-Key': DEMO_KEY, 'X-Forwarded-For': '198.51.100.66' } });
      const [line] = await logged();
      expect(line).toMatchObject({ method: 'GET', route: '/sandbox/v1/payments', status: 200, payee_id: 'DEMO-MERCHANT-1', client: '127.0.0.1' });
      expect(JSON.stringify(line)).not.toContain(DEMO_KEY);
    } finally {
      await sandbox.close();
    }
  });

  it('carry the address the proxies forwarded behind SANDBOX_TRUST_PROXY=1, not the one forged on the left', async () => {
    const { sandbox, server, logged } = await liveWithLog({ trustProxy: 1 });
    try {
      await fetch(`${server.url}/sandbox/v1/merchants`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': '10.9.9.9, 203.0.113.5' }, body: '{}' });
      const [line] = await logged();
      expect(line).toMatchObject({ route: '/sandbox/v1/merchants', status: 200, client: '203.0.113.5' });
    } finally {
      await sandbox.close();
    }
  });

  it('name an in-process request (sandbox.fetch) as such', async () => {
    const { sandbox, logged } = await liveWithLog();
    try {
      await sandbox.fetch(new Request('http://sandbox.test/sandbox/v1/payments', { headers: { 'Service-Api-Key': DEMO_KEY } }));
      expect((await logged())[0]).toMatchObject({ client: 'in-process' });
    } finally {
      await sandbox.close();
    }
  });
});

describe('SANDBOX_LOG_HEALTH', () => {
  it('is off unless on; anything else is refused at start', () => {
    expect(configFromEnv({}).logHealthChecks).toBe(false);
    expect(configFromEnv({ SANDBOX_LOG_HEALTH: 'on' }).logHealthChecks).toBe(true);
    expect(() => configFromEnv({ SANDBOX_LOG_HEALTH: 'yes' })).toThrow('SANDBOX_LOG_HEALTH must be off or on, got yes');
  });
});
