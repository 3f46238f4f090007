/**
 * SPEC 19: the enrolment limit defaults to 10 a minute where strangers can reach the sandbox
 * (HOST not a loopback address, or SANDBOX_TRUST_PROXY set) and to none otherwise;
 * SANDBOX_ENROLL_LIMIT wins. The configuration is read as `serve` reads it, then enrolments go
 * over real HTTP.
 */
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../../src/serve-command.js';
import { isLoopbackHost } from '../../../src/services/config.js';
import { memorySandbox } from '../../helpers.js';

/** Enrolls `times` merchants from 127.0.0.1 on a sandbox configured by `env` and `host`; answers the statuses and the last body. */
async function enrollments(env: NodeJS.ProcessEnv, host: string, times: number) {
  const sandbox = await memorySandbox({ config: configFromEnv(env, host) });
  try {
    const server = await sandbox.listen(0, '127.0.0.1');
    const statuses: number[] = [];
    let last: { code?: number; description?: string } = {};
    for (let i = 0; i < times; i++) {
      const answer = await fetch(`${server.url}/sandbox/v1/merchants`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
      statuses.push(answer.status);
      last = (await answer.json()) as typeof last;
    }
    return { statuses, last, merchants: (await sandbox.services.store.merchantIds()).length - 2 };
  } finally {
    await sandbox.close();
  }
}

describe('the enrolment limit by default', () => {
  it.each(['127.0.0.1', 'localhost', '::1', '127.0.0.2'])('is none on a loopback address (HOST=%s): 15 enrolments in a minute pass', async (host) => {
    const { statuses, merchants } = await enrollments({}, host, 15);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(merchants).toBe(15);
  });

  it.each([
    ['HOST=0.0.0.0', {}, '0.0.0.0'],
    ['HOST=::', {}, '::'],
    ['HOST=192.0.2.10', {}, '192.0.2.10'],
    ['SANDBOX_TRUST_PROXY=1 on loopback', { SANDBOX_TRUST_PROXY: '1' }, '127.0.0.1'],
  ] as const)('is 10 a minute where strangers can reach it (%s): the 11th answers 429 and enrolls nothing', async (_name, env, host) => {
    const { statuses, last, merchants } = await enrollments({ ...env }, host, 11);
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses[10]).toBe(429);
    expect(last.code).toBe(429);
    expect(last.description).toMatch(/^Enrolment limit reached: 10 merchants per minute from one client; retry after \d+ s/);
    expect(merchants).toBe(10);
  });

  it('SANDBOX_ENROLL_LIMIT wins both ways', async () => {
    const open = await enrollments({ SANDBOX_ENROLL_LIMIT: '0' }, '0.0.0.0', 12);
    expect(open.statuses.every((s) => s === 200)).toBe(true);
    const tight = await enrollments({ SANDBOX_ENROLL_LIMIT: '2' }, '127.0.0.1', 3);
    expect(tight.statuses).toEqual([200, 200, 429]);
    expect(tight.merchants).toBe(2);
  });

  it('takes HOST from the environment when no host is given (the flag wins in serve)', () => {
    expect(configFromEnv({ HOST: '0.0.0.0' }).enrollLimitPerMinute).toBe(10);
    expect(configFromEnv({}).enrollLimitPerMinute).toBe(0);
    expect(configFromEnv({ HOST: '0.0.0.0' }, '127.0.0.1').enrollLimitPerMinute).toBe(0);
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true], ['127.255.0.1', true], ['localhost', true], ['LOCALHOST', true], ['::1', true], ['[::1]', true], ['0:0:0:0:0:0:0:1', true], ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false], ['::', false], ['10.0.0.1', false], ['::ffff:10.0.0.1', false], ['sandbox.example.com', false], ['128.0.0.1', false],
  ] as const)('%s -> %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});
