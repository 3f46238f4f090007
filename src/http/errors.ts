/**
 * Every error a request can end in, answered in one place: the sandbox's own errors by kind,
 * the store's outages, clients that hung up, a disk that cannot be written, and
 * anything else as a 500 that names no internals.
 */
import type { Context } from 'hono';
import { Code } from '../domain/codes.js';
import { SandboxError } from '../domain/errors.js';
import type { ResponseCode } from '../domain/codes.js';
import type { ErrorKind } from '../domain/errors.js';
import { errorFields, logInternalError, loggerOr } from '../logger.js';
import { StoreUnavailableError } from '../store/unavailable.js';
import type { AppEnv } from './context.js';
import { send } from './envelope.js';

/** The envelope code (and, unless SANDBOX_HTTP_STATUS=always-200, the HTTP status) of each kind. */
const CODE_OF: Readonly<Record<ErrorKind, ResponseCode>> = {
  invalid: Code.INVALID,
  unauthenticated: Code.UNAUTHENTICATED,
  refused: Code.REQUEST_FAILED,
  not_found: Code.NOT_FOUND,
  body_too_large: Code.TOO_LARGE,
  unsupported_media_type: Code.UNSUPPORTED_MEDIA_TYPE,
  uri_too_long: Code.URI_TOO_LONG,
  rate_limited: Code.RATE_LIMITED,
  injected_internal_error: Code.INTERNAL,
  injected_unavailable: Code.UNAVAILABLE,
};

export function codeOf(err: SandboxError): ResponseCode {
  return CODE_OF[err.kind];
}

export function sendError(c: Context<AppEnv>, err: SandboxError): Response {
  const headers: Record<string, string> = err.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(err.retryAfterSeconds) };
  return send(c, { code: codeOf(err), description: err.description, ...err.details }, headers);
}

/** Hono's onError: the answer to whatever a request threw. */
export function answerError(err: Error, c: Context<AppEnv>): Response {
  if (err instanceof SandboxError) return sendError(c, err);
  if (err instanceof StoreUnavailableError) {
    // Not logged per request: the store writes one line when the outage starts and one when it ends.
    const outcome = err.outcomeUnknown
      ? 'the connection was lost mid-call, so a change may or may not have been made: read the payment status before you retry'
      : 'nothing was changed; retry in a few seconds';
    return send(c, { code: Code.UNAVAILABLE, description: err.forClient ?? `The sandbox's database cannot be reached right now: ${outcome}.` }, { 'Retry-After': '2' });
  }
  // A client that hung up mid-body is not a sandbox fault: nobody reads this answer, and the journal says what happened.
  if (clientHungUp(err)) return send(c, { code: Code.INVALID, description: 'The client closed the connection before the request body arrived; nothing was changed.' });
  // The services are set by the app's first layer; an error thrown before it still gets a logger.
  const logger = loggerOr(c.get('services')?.logger);
  const request = { request_id: c.get('record')?.id ?? null, method: c.req.method, path: new URL(c.req.url).pathname };
  // The cause goes to the server log only; the client gets the envelope, never a stack.
  logInternalError(logger, err, request);
  return send(c, { code: Code.INTERNAL, description: 'Internal error in the sandbox: nothing was changed. Please report it with the request that caused it.' });
}

function clientHungUp(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  return err.message === 'aborted' || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE';
}
