/**
 * A Sandbox-Fault header sent where faults do not apply (control routes, pages, health) does
 * nothing; this says so in Sandbox-Warning rather than let the rehearsal pass unnoticed.
 */
import { createMiddleware } from 'hono/factory';
import { faultsApplyTo } from '../../../domain/faults.js';
import type { AppEnv } from '../../context.js';
import { asciiHeaderValue } from '../../envelope.js';

export function faultHeaderIgnored(path: string): string {
  return `Sandbox-Fault ignored: faults apply to the public API only (/openapi/v1/..., /v1/...), not to ${path.slice(0, 128)}`;
}

/** For every route: warns when Sandbox-Fault is sent to a path faults do not apply to. */
export const warnIgnoredFaultHeader = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.header('sandbox-fault') === undefined || faultsApplyTo(c.req.path)) return next();
  const warning = faultHeaderIgnored(c.req.path);
  // An envelope answer writes the warnings itself (http/envelope.ts); others (pages, images) get it here.
  c.get('warnings')?.push(warning);
  await next();
  if (!c.res.headers.has('sandbox-warning')) {
    try {
      c.res.headers.set('sandbox-warning', asciiHeaderValue(warning));
    } catch {
      // A response with immutable headers keeps them: nothing is lost but the note.
    }
  }
});
