/**
 * The answers and headers routes share: the envelope, the error answers with their statuses and
 * headers, and the request headers of the public routes. A route's contract lists which apply.
 */
import { z } from 'zod';
import { FAULT_SYNTAX, MAX_LATENCY_MS } from '../../domain/faults.js';
import { FAULT_PATTERN } from '../schemas.js';
import type { AnswerContract, HeaderContract, JsonSchema } from './route.js';

/** An answer shared by many routes: the document writes it once, under components/responses. */
export interface SharedAnswer extends AnswerContract {
  readonly name: string;
}

const shared = (name: string, answer: AnswerContract): SharedAnswer => ({ name, ...answer });

/** A header shared by many answers: written once, under components/headers. */
export interface SharedHeader extends HeaderContract {
  readonly name: string;
}

const header = (name: string, h: HeaderContract): SharedHeader => ({ name, ...h });

export const headers = {
  requestId: header('RequestId', {
    description: 'Names this request in the journal and the server log: the Request-Id the client sent when it is 1-64 characters [A-Za-z0-9._:-], else one drawn by the sandbox.',
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,64}$' },
  }),
  retryAfter: header('RetryAfter', { description: 'Seconds to wait before the next request.', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } }),
  retryAfterWhenStore: header('RetryAfterStore', {
    description: 'Seconds to wait: sent when the store is unreachable or its data file cannot be written (2), and with a 503 injected by Sandbox-Fault or a fault rule (1); not with the magic amount 900.02.',
    required: false,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  }),
  allow: header('Allow', { description: 'The methods this path serves.', required: true, schema: { type: 'string', pattern: '^[A-Z]+(, [A-Z]+)*$' } }),
  sandboxWarning: header('SandboxWarning', {
    description: 'Unknown body fields that were ignored, each named (with a "did you mean" when it looks like a typo); a Sandbox-Fault header that was ignored, and why.',
    required: false,
    schema: { type: 'string' },
  }),
  replayed: header('IdempotentReplayed', {
    description: 'The first answer to this Idempotency-Key, replayed: nothing was changed by this request.',
    required: false,
    schema: { type: 'string', enum: ['true'] },
  }),
} as const;

export const requestHeaders = {
  sandboxFault: header('SandboxFault', {
    description: `Faults for this request: ${FAULT_SYNTAX}, several joined with ",". error answers before anything is committed; error-after-commit, timeout and drop after. Latencies add up to at most ${MAX_LATENCY_MS} ms. Anything else is a 400.`,
    required: false,
    schema: { type: 'string', pattern: FAULT_PATTERN },
  }),
  idempotencyKey: header('IdempotencyKey', {
    description: 'One value per operation, repeated on its retries: a retry with the same body gets the first answer again (Idempotent-Replayed: true); the same key with another body is a 400; a retry while the first still runs is a 402. Kept 24 hours of the sandbox clock.',
    required: false,
    schema: { type: 'string', pattern: '^[\\x20-\\x7E]{1,255}$' },
  }),
} as const;

export const fieldError = z.object({ field: z.string(), message: z.string() });

/** The envelope of a success: code 200, a description, and the route's fields. */
export function okBody<S extends z.ZodRawShape>(shape: S) {
  return z.object({ code: z.literal(200), description: z.string(), ...shape });
}

/** The envelope of an error with this code (or any code of a range). */
export function problemBody(code: number | '4XX' | '5XX', extra: z.ZodRawShape = {}) {
  const codeSchema = code === '4XX' ? z.number().int().min(400).max(499) : code === '5XX' ? z.number().int().min(500).max(599) : z.literal(code);
  return z.object({ code: codeSchema, description: z.string(), ...extra });
}

/** A JSON answer that keeps its schema's type: the dashboard's script reads its bodies' types off the contracts. */
export interface JsonAnswer<S extends z.ZodType> extends AnswerContract {
  readonly content: { readonly 'application/json': S };
}

export const json = <S extends z.ZodType>(description: string, schema: S, extra: Pick<AnswerContract, 'headers'> = {}): JsonAnswer<S> => ({
  description,
  content: { 'application/json': schema },
  ...extra,
});

const text: JsonSchema = { type: 'string' };
export const html = (description: string): AnswerContract => ({ description, content: { 'text/html': text } });

export const answers = {
  invalid: shared('Invalid', json('Invalid parameters: malformed JSON, a body that is not an object, a missing or mistyped field (each named in errors).', problemBody(400, { errors: z.array(fieldError).optional() }))),
  unauthenticated: shared('Unauthenticated', json('Missing or unknown Service-Api-Key.', problemBody(401))),
  refused: shared('Refused', json('Valid, but the state does not allow it now: the description names the state and what is allowed.', problemBody(402))),
  notFound: shared('NotFound', json('No such payment (or one of another merchant), or no such item.', problemBody(404))),
  tooLarge: shared('TooLarge', json('The body is over 64 KiB.', problemBody(413))),
  unsupportedMediaType: shared('UnsupportedMediaType', json('A body sent without Content-Type: application/json (UTF-8).', problemBody(415))),
  rateLimited: shared(
    'RateLimited',
    json(
      "Over the merchant's requests-per-second limit, or (public routes) over the 32 requests it may have held at once by latency or timeout faults, or a 429 injected by a fault (then Retry-After is 1).",
      problemBody(429),
      { headers: { 'Retry-After': headers.retryAfter } },
    ),
  ),
  internal: shared('Internal', json('Internal error: nothing was changed.', problemBody(500))),
  storeUnavailable: shared(
    'Unavailable',
    json("The sandbox's database cannot be reached, or its data file cannot be written (a full disk): nothing was changed, and Retry-After says when to retry. Or a 503 injected by a fault.", problemBody(503), {
      headers: { 'Retry-After': headers.retryAfterWhenStore },
    }),
  ),
  timeout: shared('Timeout', json('Injected by a timeout fault after the change was committed (the answer was held), or by error=504.', problemBody(504))),
  injected4xx: shared('InjectedClientError', json('Any status 400-499 injected by Sandbox-Fault error=<status> (or a fault rule): nothing was committed.', problemBody('4XX'))),
  injected5xx: shared('InjectedServerError', json('Any status 500-599 injected by Sandbox-Fault error=<status> or error-after-commit=<status> (or a fault rule).', problemBody('5XX'))),
  requestTimeout: shared(
    'RequestTimeout',
    json('The request did not arrive in time (its headers within 10 s, the whole request within 30 s, by default): answered by the server before any route, nothing was done, and the connection is closed.', problemBody(408)),
  ),
  headersTooLarge: shared('HeadersTooLarge', json('The request headers are over 16 KiB: answered by the server before any route, nothing was done, and the connection is closed.', problemBody(431))),
  uriTooLong: shared('UriTooLong', json('The path is over 2,048 characters (a path parameter far too long): answered before the key is checked.', problemBody(414))),
  methodNotAllowed: shared(
    'MethodNotAllowed',
    json(
      'The path exists, but not with this method (a method no operation of the path lists), or a 405 injected on a public route by Sandbox-Fault error=405 or a fault rule (nothing committed). Allow lists the methods the path serves.',
      problemBody(405),
      { headers: { Allow: headers.allow } },
    ),
  ),
} as const;

/** Every request may meet these before any route: the server answers them itself (src/server.ts). */
export const SERVER_ANSWERS = { 408: answers.requestTimeout, 431: answers.headersTooLarge } as const;

/** Every route that reads the store: an internal error; an unreachable database or a data file that cannot be written. */
export const STORE_ANSWERS = { 500: answers.internal, 503: answers.storeUnavailable } as const;

/** Every route behind the Service-Api-Key (and its rate limit). */
export const KEYED_ANSWERS = { 401: answers.unauthenticated, 429: answers.rateLimited, ...STORE_ANSWERS } as const;

/** Every route that reads a JSON body. */
export const BODY_ANSWERS = { 400: answers.invalid, 413: answers.tooLarge, 415: answers.unsupportedMediaType } as const;

/**
 * The public routes, where Sandbox-Fault and fault rules inject answers, with the headers of the
 * status (http/faults.ts injectedHeaders): 429 and 503 (Retry-After) are declared with the keyed answers.
 */
export const FAULT_ANSWERS = { 405: answers.methodNotAllowed, 504: answers.timeout, '4XX': answers.injected4xx, '5XX': answers.injected5xx } as const;
