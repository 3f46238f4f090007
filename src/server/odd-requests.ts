/**
 * Requests that are valid HTTP but that Node or the Hono adapter would answer outside the JSON
 * envelope (an empty 400 or 417, or a silent close), or not at all: HTTP/1.1 without Host, with
 * two Host headers (Node keeps the first and answers 200), `OPTIONS *`, an
 * Expect other than 100-continue, CONNECT, and a Host or target the adapter cannot make a URL of.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { RequestError } from '@hono/node-server';
import { newRequestId } from '../domain/ids.js';
import { logInternalError } from '../logger.js';
import type { Logger } from '../logger.js';
import { endWithAnswer, rawEnvelope } from './malformed-http.js';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

const JSON_TYPE = 'application/json; charset=UTF-8';

export const NO_HOST =
  'An HTTP/1.1 request must carry a Host header: send "Host: <the host and port you connect to>" with the request line; nothing was done.';

/** The methods some route of the app serves (HEAD with GET), as an Allow header's value. */
export function methodsServed(routes: readonly { readonly method: string }[]): string {
  const methods = new Set(routes.map((route) => route.method).filter((method) => method !== 'ALL'));
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort().join(', ');
}

export const TWO_HOSTS =
  'The request carries more than one Host header: send exactly one, "Host: <the host and port you connect to>"; nothing was done.';

/** How many Host headers the request carried (Node keeps the first in req.headers and drops the rest). */
function hostHeaders(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.length === 4 && rawHeaders[i]!.toLowerCase() === 'host') count += 1;
  return count;
}

function sendEnvelope(res: ServerResponse, status: number, description: string, headers: Readonly<Record<string, string>> = {}): void {
  const body = JSON.stringify({ code: status, description });
  res.writeHead(status, { 'Content-Type': JSON_TYPE, 'Request-Id': newRequestId(), 'Content-Length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

/** In front of the adapter's listener: answers a request without Host and `OPTIONS *` itself. */
export function answerOddRequestsFirst(app: RequestListener, allow: string): RequestListener {
  return (req, res) => {
    // Node's own check (requireHostHeader) answers an empty 400; ours is off so that this one runs.
    if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor === 1) {
      return sendEnvelope(res, 400, NO_HOST, { Connection: 'close' });
    }
    // Two Hosts name two targets (RFC 9112 says answer 400): which one a proxy and the sandbox each took is unknowable.
    if (hostHeaders(req.rawHeaders) > 1) return sendEnvelope(res, 400, TWO_HOSTS, { Connection: 'close' });
    if (req.method === 'OPTIONS' && req.url === '*') {
      return sendEnvelope(res, 200, `This server answers the methods ${allow} (see Allow); GET /openapi.json lists each route with its methods.`, { Allow: allow });
    }
    return app(req, res);
  };
}

/** Unknown Expect values and CONNECT, which never reach the request listener. */
export function answerOddRequests(server: Server, allow: string): void {
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const asked = JSON.stringify(String(req.headers.expect).slice(0, 64));
    sendEnvelope(res, 417, `Expect: ${asked} cannot be met: the only expectation this server knows is 100-continue; send the request without Expect. Nothing was done.`, {
      Connection: 'close',
    });
  });
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => {});
    // The socket is ours now, no parser reads it: read on and drop what the client sends after.
    socket.resume();
    const answer = rawEnvelope(405, `CONNECT is not allowed: this server is not a proxy; it answers ${allow} on its own routes. Nothing was done.`, { Allow: allow });
    endWithAnswer(socket, answer.text, true);
  });
}

/** The adapter's errorHandler: a Host or request target it could not make a URL of is a 400 in the envelope; anything else is said through `logger`. */
export function answerRequestError(err: unknown, logger: Logger): Response {
  const requestId = newRequestId();
  const [status, description] = requestProblem(err, () => logInternalError(logger, err, { request_id: requestId }, 'internal error before the app'));
  return new Response(JSON.stringify({ code: status, description }), { status, headers: { 'Content-Type': JSON_TYPE, 'Request-Id': requestId } });
}

function requestProblem(err: unknown, logInternal: () => void): [number, string] {
  if (!(err instanceof RequestError)) {
    // The cause goes to the server log only; the client gets the envelope, never a stack.
    logInternal();
    return [500, 'Internal error in the sandbox: nothing was changed. Please report it with the request that caused it.'];
  }
  if (err.message === 'Missing host header') return [400, NO_HOST];
  if (err.message === 'Invalid host header') return [400, 'The Host header is not a host name or address with an optional port: send "Host: <host>[:<port>]"; nothing was done.'];
  return [
    400,
    `The request target and the Host header do not make a URL the sandbox serves (${err.message}): send "METHOD /path HTTP/1.1" with a path that starts with "/" and holds no backslash, and "Host: <host>[:<port>]"; nothing was done.`,
  ];
}
