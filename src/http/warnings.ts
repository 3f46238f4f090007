/**
 * The request's warnings for the Sandbox-Warning header and its journal entry (unknown fields,
 * a Sandbox-Fault sent where faults do not apply): this module owns them, as Hono's `timing`
 * owns its metrics; any layer adds one with `warn`, the envelope and the record read them.
 */
import type { Context } from 'hono';
import type { AppEnv } from './context.js';

export interface WarningVariables {
  /** Unset until a layer warns. */
  warnings: string[] | undefined;
}

const NONE: readonly string[] = [];

/** Adds warnings to this request's answer. */
export function warn(c: Context<AppEnv>, texts: readonly string[]): void {
  if (texts.length === 0) return;
  const list = c.get('warnings');
  if (list) list.push(...texts);
  else c.set('warnings', [...texts]);
}

/** This request's warnings so far, oldest first. */
export function warningsOf(c: Context<AppEnv>): readonly string[] {
  return c.get('warnings') ?? NONE;
}
