/**
 * A Sandbox-Fault header sent where faults do not apply (control routes, pages, health, a request
 * no route serves) does nothing; this says so in Sandbox-Warning rather than let the rehearsal
 * pass unnoticed.
 */
import type { Context } from 'hono';
import { faultsApplyTo } from '../../../domain/faults.js';
import type { AppEnv } from '../../context.js';
import type { RouteCheck } from '../../middleware/auth.js';

export function faultHeaderIgnored(path: string): string {
  return `Sandbox-Fault ignored: faults apply to the public API only (/openapi/v1/..., /v1/...), not to ${path.slice(0, 128)}`;
}

/** A public path with a method no route serves: it answers its 404 or 405, never an injected fault. */
export function faultHeaderUnserved(method: string, path: string): string {
  return `Sandbox-Fault ignored: no route serves ${method.slice(0, 16)} ${path.slice(0, 128)}, so it answers as it would without the header; faults apply only to requests a public route serves`;
}

/** Why a Sandbox-Fault header sent with this request does nothing, or undefined when it applies. */
export function ignoredFaultHeader(c: Context<AppEnv>, isRouted: RouteCheck): string | undefined {
  if (!faultsApplyTo(c.req.path)) return faultHeaderIgnored(c.req.path);
  return isRouted(c) ? undefined : faultHeaderUnserved(c.req.method, c.req.path);
}
