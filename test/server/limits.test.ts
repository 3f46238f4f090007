/** src/server/limits.ts: the defaults and what the environment may set (the env names are also checked in test/e2e/slow-clients.error.test.ts). */
import { describe, expect, it } from 'vitest';
import { checkedLimits, DEFAULT_SERVER_LIMITS, serverLimitsFromEnv } from '../../src/server/limits.js';

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
});
