/**
 * Applying faults: `error` answers before anything is committed; `error-after-commit`,
 * `timeout` and `drop` let the change commit and are applied to its answer once that answer is
 * kept (the Idempotency-Key) and written, by the outermost layer: spoiled, held, or cut. This
 * module owns what faults did to a request (`faults`), and exports the readers.
 */
import type { Socket } from 'node:net';
import type { Context } from 'hono';
import { Code } from '../domain/codes.js';
import { SandboxError } from '../domain/errors.js';
import { isRefusal } from '../services/held-requests.js';
import type { HeldPlace } from '../services/held-requests.js';
import type { ResponseCode } from '../domain/codes.js';
import type { Fault } from '../domain/faults.js';
import type { AppEnv } from './context.js';
import { send } from './envelope.js';

/** A fault applied once the change is committed. */
export type AfterCommitFault = Extract<Fault, { kind: 'error-after-commit' | 'timeout' | 'drop' }>;

/** What becomes of a committed answer: held back by a timeout, or cut by a drop. */
export type Cut = 'held' | 'dropped';

/** What faults did to one request, and what they still do to its answer. */
export interface RequestFaults {
  /** The faults applied, as the journal shows them. */
  noted: string | undefined;
  /** Applied to the answer once it is kept and written, in order. */
  readonly afterCommit: AfterCommitFault[];
  /** Places among the merchant's held requests, kept until the answer is given. */
  readonly places: HeldPlace[];
  /** The methods of the path, for an injected 405's Allow. */
  allow: string;
}

export interface FaultVariables {
  faults: RequestFaults | undefined;
}

function faultsOf(c: Context<AppEnv>): RequestFaults {
  let faults = c.get('faults');
  if (!faults) c.set('faults', (faults = { noted: undefined, afterCommit: [], places: [], allow: '' }));
  return faults;
}

/** Notes a fault applied to this request (the Sandbox-Fault header, a rule, a magic amount), after any noted before it. */
export function noteFault(c: Context<AppEnv>, text: string): void {
  const faults = faultsOf(c);
  faults.noted = faults.noted ? `${faults.noted}, ${text}` : text;
}

/** The faults applied to this request, as the journal shows them; undefined when none. */
export function faultNoteOf(c: Context<AppEnv>): string | undefined {
  return c.get('faults')?.noted;
}

/**
 * Applies `faults` to the answer just made, once it is kept and written: the answer is the
 * committed one. `place` (a held place taken for them) is released once the answer is given.
 */
export function answerAfterCommit(c: Context<AppEnv>, faults: readonly AfterCommitFault[], place: HeldPlace | undefined, allow = ''): void {
  const own = faultsOf(c);
  own.afterCommit.push(...faults);
  if (place) own.places.push(place);
  own.allow = allow;
}

/** This request's faults when some apply to its committed answer, else undefined. */
export function committedFaultsOf(c: Context<AppEnv>): RequestFaults | undefined {
  const faults = c.get('faults');
  return faults && faults.afterCommit.length > 0 ? faults : undefined;
}

/** Gives back the held places of this request's faults, once its answer is given. */
export function releaseHeldPlaces(faults: RequestFaults): void {
  for (const place of faults.places) place.release();
}

/** Marks a `drop` answer (204 over a socket, 599 in-process, where the library turns it into a failed fetch). */
export const DROPPED_HEADER = 'x-sandbox-dropped';

function socketOf(c: Context<AppEnv>): Socket | undefined {
  const env = c.env as { incoming?: { socket?: Socket } } | undefined;
  return env?.incoming?.socket;
}

/** An injected status's seconds in Retry-After: a client rehearsing a 429 or 503 can honour it at once. */
const INJECTED_RETRY_AFTER_SECONDS = 1;

/**
 * The headers /openapi.json declares for an injected status, so the rehearsal looks like the real
 * answer: Retry-After with a 429 or 503, Allow (the methods of the path, `allow`) with a 405.
 */
export function injectedHeaders(status: ResponseCode, allow: string): Record<string, string> {
  if (status === 429 || status === 503) return { 'Retry-After': String(INJECTED_RETRY_AFTER_SECONDS) };
  return status === 405 ? { Allow: allow } : {};
}

function injectedError(c: Context<AppEnv>, status: ResponseCode, committed: boolean, headers: Record<string, string>): Response {
  const what = committed
    ? 'the change WAS committed; query the payment status to learn the outcome'
    : 'nothing was committed; the request can be retried';
  return send(c, { code: status, description: `Injected fault: this request answers ${status} by a sandbox fault (${what}).` }, headers);
}

/** `error=`: answers before anything runs, so nothing is committed (and nothing kept for an Idempotency-Key): a retry runs. */
export function answerBeforeCommit(c: Context<AppEnv>, status: ResponseCode, headers: Record<string, string>): Response {
  return injectedError(c, status, false, headers);
}

/**
 * Spoils the committed answer by its `error-after-commit` faults, and says what becomes of it
 * then: held (`timeout`), cut (`drop`), or nothing more. Called once the answer is kept.
 */
export async function spoilCommittedAnswer(c: Context<AppEnv>, faults: RequestFaults): Promise<Cut | undefined> {
  let cut: Cut | undefined;
  for (const fault of faults.afterCommit) {
    if (fault.kind === 'error-after-commit') c.res = injectedError(c, fault.status, true, injectedHeaders(fault.status, faults.allow));
    else cut ??= fault.kind === 'timeout' ? 'held' : 'dropped';
  }
  return cut;
}

/** Gives the committed answer its cut, once journaled: holds it (then 504), or closes the connection without one. */
export async function cutAnswer(c: Context<AppEnv>, cut: Cut): Promise<Response> {
  const socket = socketOf(c);
  if (cut === 'dropped') {
    socket?.destroy();
    return new Response(null, { status: socket ? 204 : 599, headers: { [DROPPED_HEADER]: '1' } });
  }
  const holdMs = c.get('services').config.timeoutHoldMs;
  await new Promise<void>((resolve) => {
    // A client that gave up while the change was being made has nobody left to hold for.
    if (socket?.destroyed || c.req.raw.signal.aborted) return resolve();
    // Only a timer is held: it ends when the client gives up or the cap passes.
    const timer = setTimeout(done, holdMs);
    socket?.once('close', done);
    // In-process (no socket), the client gives up by aborting its Request.
    const signal = c.req.raw.signal;
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      socket?.off('close', done);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
  return send(c, {
    code: Code.TIMEOUT,
    description: `Injected fault: the response was held for up to ${Math.round(holdMs / 1000)} s by a timeout fault; the change WAS committed, so query the payment status.`,
  });
}

/**
 * A place among the merchant's held requests (SPEC 18) for a hold of at most `upToMs`, or a 429
 * that changes nothing: thrown before any commit (an Idempotency-Key keeps no 429), with
 * `undo` given the chance to take back what the request drew.
 */
export async function takeHeldPlace(c: Context<AppEnv>, upToMs: number, undo: () => Promise<void> = async () => {}): Promise<HeldPlace> {
  const taken = c.get('services').held.take(c.get('merchant').payeeId, upToMs);
  if (!isRefusal(taken)) return taken;
  await undo();
  const wait = taken.retryAfterSeconds;
  throw SandboxError.rateLimited(
    `Too many held requests: this merchant already has ${taken.cap} requests held by latency or timeout faults on this instance, the most at once, so nothing was done; retry after ${wait} s (see Retry-After), or sooner once one of them is answered or its client gives up.`,
    wait,
  );
}
