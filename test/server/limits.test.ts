/** src/server/limits.ts: the defaults and what the environment may set (the env names are also checked in test/e2e/slow-clients.error.test.ts). */
import { describe, expect, it } from 'vitest';
import { checkedLimits, DEFAULT_SERVER_LIMITS, drainDelayFromEnv, serverLimitsFromEnv } from '../../src/server/limits.js';

describe('server limits', () => {
  it('an empty environment gives the defaults; an empty value is the default too', () => {
    expect(serverLimitsFromEnv({})).toEqual(DEFAULT_SERVER_LIMITS);
    expect(serverLimitsFromEnv({ SANDBOX_MAX_CONNECTIONS: '' })).toEqual(DEFAULT_SERVER_LIMITS);
  });

  it('0 turns a cap off; a negative or fractional value is refused by name', () => {
    expect(serverLimitsFromEnv({ SANDBOX_MAX_CONNECTIONS: '0' }).maxConnections).toBe(0);
    expect(() => serverLimitsFromEnv({ SANDBOX_MAX_CONNECTIONS: '-1' })).toThrow(/SANDBOX_MAX_CONNECTIONS must be a whole number of at least 0 \(0 is off\), got -1/);
  });

  it('headers may not take longer than the whole request', () => {
    expect(() => checkedLimits({ ...DEFAULT_SERVER_LIMITS, headersTimeoutMs: 5000, requestTimeoutMs: 4000 })).toThrow(/must not be over SANDBOX_REQUEST_TIMEOUT_MS/);
    expect(checkedLimits({ ...DEFAULT_SERVER_LIMITS, headersTimeoutMs: 5000, requestTimeoutMs: 0 }).headersTimeoutMs).toBe(5000);
  });

  it('SANDBOX_DRAIN_DELAY_MS defaults to 0 on loopback and 5000 beyond it or behind a proxy (SANDBOX_TRUST_PROXY); a value wins either way; anything but a whole number up to 600000 is refused by name', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '[::1]']) expect(drainDelayFromEnv({}, host)).toBe(0);
    for (const host of ['0.0.0.0', '::', '10.0.0.5']) expect(drainDelayFromEnv({ SANDBOX_DRAIN_DELAY_MS: '' }, host)).toBe(5000);
    expect(drainDelayFromEnv({ SANDBOX_DRAIN_DELAY_MS: '0' }, '0.0.0.0')).toBe(0);
    expect(drainDelayFromEnv({ SANDBOX_DRAIN_DELAY_MS: '3000' }, '127.0.0.1')).toBe(3000);
    // Behind a proxy a balancer stands in front, on loopback too; an explicit delay still wins.
    for (const host of ['127.0.0.1', '::1', '0.0.0.0']) expect(drainDelayFromEnv({ SANDBOX_TRUST_PROXY: '1' }, host)).toBe(5000);
    expect(drainDelayFromEnv({ SANDBOX_TRUST_PROXY: '2', SANDBOX_DRAIN_DELAY_MS: '' }, '127.0.0.1')).toBe(5000);
    expect(drainDelayFromEnv({ SANDBOX_TRUST_PROXY: '0' }, '127.0.0.1')).toBe(0);
    expect(drainDelayFromEnv({ SANDBOX_TRUST_PROXY: '1', SANDBOX_DRAIN_DELAY_MS: '0' }, '127.0.0.1')).toBe(0);
    expect(drainDelayFromEnv({ SANDBOX_TRUST_PROXY: '1', SANDBOX_DRAIN_DELAY_MS: '1500' }, '127.0.0.1')).toBe(1500);
    for (const bad of ['-1', '1.5', '1e3', ' 5', 'five', '600001']) {
      expect(() => drainDelayFromEnv({ SANDBOX_DRAIN_DELAY_MS: bad }, '0.0.0.0')).toThrow(`SANDBOX_DRAIN_DELAY_MS must be a whole number of milliseconds from 0 to 600000 (how long a stopping instance keeps serving while a balancer takes it out; 0 stops at once), got ${bad}`);
    }
  });
});
