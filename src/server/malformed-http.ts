/**
 * Malformed HTTP that Node's parser or timers report ('clientError'): an answer in the JSON
 * envelope where the protocol allows one (400, 408, 413, 431, with Connection: close), never a
 * silent close, and the rest of the connection read and dropped so the client gets it.
 */
import type { Socket } from 'node:net';
import type { Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { newRequestId } from '../domain/ids.js';
import type { ConnectionTable } from './connection-caps.js';
import type { ServerLimits } from './limits.js';
import { BODY_GRACE_MS, BODY_TOO_SLOW } from './slow-bodies.js';

type TimeLimits = Pick<ServerLimits, 'headersTimeoutMs' | 'requestTimeoutMs'> & Partial<Pick<ServerLimits, 'bodyMinBytesPerSecond'>>;

/** How long a connection answered for broken HTTP is read from (and the bytes dropped) before it is cut. */
const LINGER_MS = 1000;

/** Answers each client error of `server` once per connection, after any answer still being written on it. */
export function answerClientErrors(server: Server, connections: ConnectionTable, limits: TimeLimits): void {
  const answered = new WeakSet<Duplex>();
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A connection already answered goes on failing to parse what follows: nothing more to say.
    if (answered.has(socket)) return;
    answered.add(socket);
    socket.on('error', () => {});
    const answer = protocolAnswer(err.code, limits);
    const current = connections.of(socket as Socket)?.current;
    // The request that failed is the one being read: its own answer must not have begun.
    const failedCurrent = current !== undefined && !current.req.complete;
    // A connection that never sent a byte and timed out is just closed (browsers open spare ones).
    const silent = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' && (socket as Socket).bytesRead === 0;
    if (!answer || silent || !socket.writable || (failedCurrent && current.res.headersSent)) {
      socket.destroy();
      return;
    }
    // The parser stops at its first error, so nothing after it can become a request: read on
    // (and drop) a moment. A timed-out request's parser has no error: cut as soon as the answer is out.
    const respond = () => endWithAnswer(socket, answer.text, (err.code?.startsWith('HPE_') ?? false) && !failedCurrent);
    // Answers go out in order: after the answer to an earlier request still being written.
    if (current && !failedCurrent && !current.res.writableFinished) {
      const { res } = current;
      res.once('finish', respond);
      res.once('close', () => {
        if (!res.writableFinished) socket.destroy();
      });
    } else {
      respond();
    }
  });
}

/**
 * Writes a connection's last answer and closes it; with `linger`, reads on (and drops what comes)
 * a moment first, so the client gets the answer rather than a reset for bytes it already sent.
 */
export function endWithAnswer(socket: Duplex, text: string, linger: boolean): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(text);
  if (linger) {
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  } else if (socket.writableFinished) {
    socket.destroy();
  } else {
    socket.once('finish', () => socket.destroy());
  }
}

export interface ProtocolAnswer {
  readonly status: number;
  readonly text: string;
  readonly requestId: string;
}

/** The raw HTTP/1.1 answer in the JSON envelope for a client error Node's parser or timers report; undefined for none. */
export function protocolAnswer(code: string | undefined, limits: TimeLimits): ProtocolAnswer | undefined {
  const found = protocolProblem(code, limits);
  return found ? rawEnvelope(found[0], found[1]) : undefined;
}

/** An answer in the JSON envelope written as raw HTTP/1.1, for a socket no response object stands for; the connection's last. */
export function rawEnvelope(status: number, description: string, headers: Readonly<Record<string, string>> = {}): ProtocolAnswer {
  const requestId = newRequestId();
  const body = JSON.stringify({ code: status, description });
  const text =
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    'Content-Type: application/json; charset=UTF-8\r\n' +
    // Like every answer of the app, one an operator can find in the server log by its id.
    `Request-Id: ${requestId}\r\n` +
    Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('') +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body;
  return { status, text, requestId };
}

function protocolProblem(code: string | undefined, limits: TimeLimits): [number, string] | undefined {
  const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [
        408,
        `The request did not arrive in time (headers within ${seconds(limits.headersTimeoutMs)}, the whole request within ${seconds(limits.requestTimeoutMs)}); nothing was done: send it again in one go.`,
      ];
    case BODY_TOO_SLOW:
      return [
        408,
        `The request body arrived too slowly: after ${seconds(BODY_GRACE_MS)}, a body must keep up with ${limits.bodyMinBytesPerSecond ?? 0} bytes a second on average; nothing was done: send it again in one go.`,
      ];
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'The request headers are over the limit of 16 KiB: send fewer or shorter headers.'];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'The chunk extensions of the body are over the limit: send the body without them.'];
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return [400, 'The Transfer-Encoding is not chunked (chunked last), or was sent with Content-Length: send Transfer-Encoding: chunked alone, or a Content-Length instead. Nothing was done.'];
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return [400, "Content-Length was sent more than once, or sent with Transfer-Encoding: send it once, with the body's size in bytes, or Transfer-Encoding: chunked alone. Nothing was done."];
    case 'HPE_INVALID_EOF_STATE':
      return [400, 'The connection was closed before the whole request arrived (the body is shorter than its Content-Length); nothing was done.'];
    case 'HPE_INVALID_METHOD':
    case 'HPE_INVALID_URL':
    case 'HPE_INVALID_VERSION':
    case 'HPE_INVALID_CONSTANT':
      return [400, `This is not an HTTP/1.1 request line (${code}): send "METHOD /path HTTP/1.1" and the headers.`];
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_CR_EXPECTED':
    case 'HPE_LF_EXPECTED':
      return [400, `A header line is not "Name: value" ending in CRLF, or holds a character HTTP does not allow (${code}).`];
    case 'HPE_INVALID_CONTENT_LENGTH':
      return [400, "The Content-Length header is not a single whole number, or was sent with Transfer-Encoding: send one Content-Length with the body's size in bytes, or Transfer-Encoding: chunked alone. Nothing was done."];
    case 'HPE_INVALID_CHUNK_SIZE':
      return [400, 'A chunk of the chunked body does not start with a hexadecimal size.'];
    default:
      if (code?.startsWith('HPE_')) return [400, `The request is not valid HTTP/1.1 (${code}); nothing was done.`];
      // ECONNRESET and the like: the client has gone, there is no one to answer.
      return undefined;
  }
}
