/** Applies the faults a request asks for in its Sandbox-Fault header. */
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../context.js';
import { applyCommittedFault, injectedError, parseFaults } from '../faults.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const injectFaults = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header('sandbox-fault');
  if (!header) return next();
  const faults = parseFaults(header);
  for (const fault of faults) if (fault.kind === 'latency') await sleep(fault.ms);
  const before = faults.find((f) => f.kind === 'error');
  if (before?.kind === 'error') {
    c.res = injectedError(c, before.status, false);
    return;
  }
  await next();
  // A handler that threw committed nothing: its own error answer stands.
  if (c.error) return;
  for (const fault of faults) {
    if (fault.kind === 'error-after-commit') c.res = injectedError(c, fault.status, true);
    else if (fault.kind === 'timeout' || fault.kind === 'drop') c.res = await applyCommittedFault(c, fault.kind, c.res);
  }
});
