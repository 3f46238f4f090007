/**
 * Applying faults: `error` answers before anything is committed; `error-after-commit`,
 * `timeout` and `drop` let the change commit and then spoil the answer.
 */
import type { Socket } from 'node:net';
import type { Context } from 'hono';
import { Code } from '../domain/codes.js';
import { SandboxError } from '../domain/errors.js';
import { isRefusal } from '../services/held-requests.js';
import type { HeldPlace } from '../services/held-requests.js';
import type { ResponseCode } from '../domain/codes.js';
import type { AppEnv } from './context.js';
import { send } from './envelope.js';

/** Thrown in-process (no socket) for `drop`; the library turns it into a rejected fetch. */
export class DroppedConnection extends Error {
  constructor() {
    super('connection dropped by a sandbox fault');
  }
}

export const DROPPED_HEADER = 'x-sandbox-dropped';

/** A `drop` answer (204 over a socket, 599 in-process); the status is read first, as it is cheap. */
export function isDroppedResponse(res: Response): boolean {
  return (res.status === 204 || res.status === 599) && res.headers.get(DROPPED_HEADER) !== null;
}

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

/**
 * `error=`: answers before anything runs. The hook that keeps the answer for the request's
 * Idempotency-Key is withdrawn, so this answer, whatever its status, is not kept and a retry runs.
 */
export function answerBeforeCommit(c: Context<AppEnv>, status: ResponseCode, headers: Record<string, string>): Response {
  c.get('record').keepCommittedAnswer = undefined;
  return injectedError(c, status, false, headers);
}

/** `error-after-commit=`: the committed answer is kept for a retry with the same Idempotency-Key, then spoiled. */
export async function spoilCommittedAnswer(c: Context<AppEnv>, status: ResponseCode, headers: Record<string, string>): Promise<Response> {
  await c.get('record').keepCommittedAnswer?.();
  return injectedError(c, status, true, headers);
}

/** After the change is committed: hold the answer, or close the connection without one. */
export async function applyCommittedFault(c: Context<AppEnv>, fault: 'timeout' | 'drop'): Promise<Response> {
  const record = c.get('record');
  // The change is committed: a retry with the same Idempotency-Key gets the answer this one would have had.
  await record.keepCommittedAnswer?.();
  // Journaled now, as held: an integration that gave up sees it through any instance (SPEC 19).
  if (fault === 'timeout') await record.journalOnce(c, true);
  const socket = socketOf(c);
  if (fault === 'drop') {
    if (!socket) throw new DroppedConnection();
    socket.destroy();
    return new Response(null, { status: 204, headers: { [DROPPED_HEADER]: '1' } });
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
 * that changes nothing: thrown before any commit, with the Idempotency-Key released and
 * `undo` given the chance to take back what the request drew.
 */
export async function takeHeldPlace(c: Context<AppEnv>, upToMs: number, undo: () => Promise<void> = async () => {}): Promise<HeldPlace> {
  const taken = c.get('services').held.take(c.get('merchant').payeeId, upToMs);
  if (!isRefusal(taken)) return taken;
  c.get('record').keepCommittedAnswer = undefined;
  await undo();
  const wait = taken.retryAfterSeconds;
  throw SandboxError.rateLimited(
    `Too many held requests: this merchant already has ${taken.cap} requests held by latency or timeout faults on this instance, the most at once, so nothing was done; retry after ${wait} s (see Retry-After), or sooner once one of them is answered or its client gives up.`,
    wait,
  );
}
