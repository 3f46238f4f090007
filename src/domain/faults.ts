/**
 * Faults an integrator asks for: by header on one request, or by rule on every matching one.
 * Rules draw with seeded randomness: the nth matching request of a rule always gets the same
 * draw for the same seed, so a CI replay fails the same requests.
 */
import { seedOf } from './seeded.js';
import { SandboxError } from './errors.js';
import type { ResponseCode } from './codes.js';
import { isPublicApiPath, PUBLIC_PATH_STARTS } from './public-api.js';
import { compiledGlob } from './path-glob.js';

export { globMatches } from './path-glob.js';

export type Fault =
  | { readonly kind: 'latency'; readonly ms: number }
  | { readonly kind: 'error'; readonly status: ResponseCode }
  | { readonly kind: 'error-after-commit'; readonly status: ResponseCode }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'drop' };

export const MAX_LATENCY_MS = 60_000;
export const FAULT_SYNTAX = 'latency=<ms>, error=<status>, error-after-commit=<status>, timeout or drop';

/** Parses `latency=200, error-after-commit=503` (the Sandbox-Fault header and a rule's `fault`). */
export function parseFaults(text: string, where = 'Sandbox-Fault'): Fault[] {
  const parts = text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (parts.length === 0) throw SandboxError.invalid(`${where} is empty: use ${FAULT_SYNTAX}.`);
  const faults = parts.map((part) => parseFault(part, where));
  const latency = faults.reduce((sum, f) => sum + (f.kind === 'latency' ? f.ms : 0), 0);
  if (latency > MAX_LATENCY_MS) throw SandboxError.invalid(`${where} asks for ${latency} ms of latency in all; the most is ${MAX_LATENCY_MS} ms.`);
  return faults;
}

function parseFault(part: string, where: string): Fault {
  const [name = '', value] = part.split('=', 2).map((s) => s.trim());
  const bad = (why: string) =>
    SandboxError.invalid(`${where} ${JSON.stringify(part.slice(0, 64))} is not understood: ${why}; use ${FAULT_SYNTAX} (several may be joined with ",").`);
  switch (name) {
    case 'latency': {
      const ms = Number(value);
      if (!/^\d+$/.test(value ?? '') || ms > MAX_LATENCY_MS) throw bad(`latency must be a whole number of milliseconds from 0 to ${MAX_LATENCY_MS}`);
      return { kind: 'latency', ms };
    }
    case 'error':
    case 'error-after-commit': {
      const status = Number(value);
      if (!/^\d{3}$/.test(value ?? '') || status < 400 || status > 599) throw bad(`${name} needs an HTTP error status from 400 to 599`);
      return { kind: name, status: status as ResponseCode };
    }
    case 'timeout':
    case 'drop':
      if (value !== undefined) throw bad(`${name} takes no value`);
      return { kind: name };
    default:
      throw bad('unknown fault');
  }
}

export function describeFault(fault: Fault): string {
  switch (fault.kind) {
    case 'latency':
      return `latency=${fault.ms}`;
    case 'error':
    case 'error-after-commit':
      return `${fault.kind}=${fault.status}`;
    default:
      return fault.kind;
  }
}

export interface FaultRule {
  readonly id: string;
  readonly match: { readonly method: string; readonly path: string };
  /** The fault text, as in the Sandbox-Fault header. */
  readonly fault: string;
  readonly probability: number;
  /** How many more times the rule may fire; null is unlimited. */
  readonly timesLeft: number | null;
  readonly seed: number;
  /** Matching requests seen so far: the index of the next seeded draw. */
  readonly matched: number;
  readonly fired: number;
  readonly createdAt: number;
}

const STAR = 0x2a;

/**
 * True when `path` is one faults apply to (the Sandbox-Fault header and rules alike): the public
 * API, under both of its prefixes (SPEC 2, SPEC 8). Control routes, pages and health are never
 * faulted (http/app.ts mounts the faults middleware on the public prefixes only).
 */
export function faultsApplyTo(path: string): boolean {
  return isPublicApiPath(path);
}

/**
 * True when some path starting with `prefix` matches `glob`: the glob's characters before its
 * first star spell the start of the prefix, or the whole prefix and more.
 */
export function globCanMatchUnder(glob: string, prefix: string): boolean {
  for (let i = 0; i < prefix.length; i++) {
    if (i === glob.length) return false;
    if (glob.charCodeAt(i) === STAR) return true;
    if (glob[i] !== prefix[i]) return false;
  }
  return true;
}

/** True when some request faults apply to can match the rule path `glob`; otherwise the rule would never fire. */
export function ruleCanFire(glob: string): boolean {
  return PUBLIC_PATH_STARTS.some((start) => globCanMatchUnder(glob, start));
}

export function ruleMatches(rule: FaultRule, method: string, path: string): boolean {
  if (rule.timesLeft === 0) return false;
  if (rule.match.method !== '*' && rule.match.method !== method) return false;
  return compiledGlob(rule.match.path).matches(path);
}

/**
 * The seeded draw in [0, 1) for the nth matching request of a rule. It depends on the seed and
 * what the rule says, not on its random id, so a replay that sets the same rule draws the same.
 */
function seededDraw(rule: Pick<FaultRule, 'seed' | 'match' | 'fault'>, n: number): number {
  const key = `${rule.seed}:${rule.match.method}:${rule.match.path}:${rule.fault}:${n}`;
  return seedOf(key) / 2 ** 32;
}

/**
 * Decides whether a matching request fires the rule; answers the rule as it is after this
 * request (matched and fired counted, times used up).
 */
export function drawRule(rule: FaultRule): { readonly fires: boolean; readonly next: FaultRule } {
  const fires = rule.probability >= 1 || seededDraw(rule, rule.matched) < rule.probability;
  return {
    fires,
    next: {
      ...rule,
      matched: rule.matched + 1,
      fired: rule.fired + (fires ? 1 : 0),
      timesLeft: fires && rule.timesLeft !== null ? rule.timesLeft - 1 : rule.timesLeft,
    },
  };
}
