/** Applies the faults of the Sandbox-Fault header and of the merchant's fault rules (public routes). */
import { createMiddleware } from 'hono/factory';
import { describeFault, parseFaults } from '../../domain/faults.js';
import type { Fault } from '../../domain/faults.js';
import type { AppEnv } from '../context.js';
import { applyCommittedFault, injectedError } from '../faults.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const injectFaults = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header('sandbox-fault');
  const merchant = c.get('merchant');
  const faults: Fault[] = header ? parseFaults(header) : [];
  if (merchant.faultRules?.length) faults.push(...(await c.get('services').faultRules.draw(merchant, c.req.method, c.req.path)));
  if (faults.length === 0) return next();
  c.set('fault', faults.map(describeFault).join(', '));

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
    else if (fault.kind === 'timeout' || fault.kind === 'drop') c.res = await applyCommittedFault(c, fault.kind);
  }
});
