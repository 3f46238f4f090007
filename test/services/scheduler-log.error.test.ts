/**
 * A background scheduler tick that fails is said in one error line of the sandbox's logger
 * (issue 18); a tick lost to a database outage is not (the store says that once itself).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { startScheduler } from '../../src/services/index.js';
import { StoreUnavailableError } from '../../src/store/unavailable.js';
import { memorySandbox } from '../helpers.js';
import { capturedLog, LEVEL, STACK_TRACE } from '../support/log.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await sandbox?.close();
  sandbox = undefined;
});

describe('the scheduler in the log', () => {
  it('a failed tick is one error line with its message, no stack; an outage writes none', async () => {
    const captured = capturedLog();
    sandbox = await memorySandbox({ log: captured.log });
    const due = vi
      .spyOn(sandbox.services.store, 'merchantsWithDueWork')
      .mockRejectedValueOnce(new StoreUnavailableError('the database cannot be reached (ECONNREFUSED)', false))
      .mockRejectedValueOnce(new RangeError('Invalid time value'))
      .mockResolvedValue([]);
    const stop = startScheduler(sandbox.services, 5);
    try {
      await vi.waitFor(() => expect(due.mock.calls.length).toBeGreaterThanOrEqual(3));
    } finally {
      stop();
    }
    expect(captured.events()).toEqual([{ level: LEVEL.error, time: expect.any(Number), err: 'Invalid time value', msg: 'scheduler tick failed' }]);
    expect(captured.text()).not.toMatch(STACK_TRACE);
  });
});
