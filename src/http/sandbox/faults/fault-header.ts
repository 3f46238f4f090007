/**
 * A Sandbox-Fault header sent where faults do not apply (control routes, pages, health, a request
 * no route serves) does nothing; this says so in Sandbox-Warning rather than let the rehearsal
 * pass unnoticed.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { faultsApplyTo } from '../../../domain/faults.js';
import type { AppEnv } from '../../context.js';
import { asciiHeaderValue } from '../../envelope.js';
import type { RouteCheck } from '../../middleware/auth.js';

export function faultHeaderIgnored(path: string): string {
  return `Sandbox-Fault ignored: faults apply to the public API only (/openapi/v1/..., /v1/...), not to ${path.slice(0, 128)}`;
}

/** A public path with a method no route serves: it answers its 404 or 405, never an injected fault. */
export function faultHeaderUnserved(method: string, path: string): string {
  return `Sandbox-Fault ignored: no route serves ${method.slice(0, 16)} ${path.slice(0, 128)}, so it answers as it would without the header; faults apply only to requests a public route serves`;
}

function ignoredBecause(c: Context<AppEnv>, isRouted: RouteCheck): string | undefined {
  if (!faultsApplyTo(c.req.path)) return faultHeaderIgnored(c.req.path);
  return isRouted(c) ? undefined : faultHeaderUnserved(c.req.method, c.req.path);
}

/** For every route: warns when Sandbox-Fault is sent where faults do not apply. */
export function warnIgnoredFaultHeader(isRouted: RouteCheck) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.header('sandbox-fault') === undefined) return next();
    const warning = ignoredBecause(c, isRouted);
    if (warning === undefined) return next();
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
}
