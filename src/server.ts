/**
 * A listening HTTP server for the app: timeouts and connection caps against slow or idle
 * clients, JSON answers to malformed HTTP, and a graceful stop.
 */
import type { AddressInfo, Socket } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { AppEnv } from './http/context.js';
import { newRequestId } from './domain/ids.js';

/** How long clients may take and how many connections they may hold. 0 turns a setting off (not the grace). */
export interface ServerLimits {
  /** From a connection's (or a request's) first byte to the end of its headers; then 408. */
  readonly headersTimeoutMs: number;
  /** From a request's first byte to the end of its body; then 408. */
  readonly requestTimeoutMs: number;
  /** How long an idle keep-alive connection is kept between requests. */
  readonly keepAliveTimeoutMs: number;
  /** Connections at once; beyond it a new connection is closed at once. */
  readonly maxConnections: number;
  /**
   * Connections at once from one client address; beyond it the client's oldest connection
   * with no request in progress (idle, or still sending its headers) is closed for the new
   * one, or the new one is closed when all are busy.
   */
  readonly maxConnectionsPerClient: number;
  /** How long a stop by signal lets answers in flight finish. */
  readonly shutdownGraceMs: number;
}

/**
 * Headers take one packet from any real client: 10 s is generous on a bad mobile link and
 * bounds a slowloris. A whole request (bodies are at most 64 KiB) in 30 s is ~2 KB/s. Keep-alive
 * 5 s is Node's default (behind a load balancer set it above the balancer's idle timeout).
 * 4096 connections cost well under 100 MB; 256 per client is above any browser or load
 * generator the sandbox meets, and below what lets one address fill the server.
 */
export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 4096,
  maxConnectionsPerClient: 256,
  shutdownGraceMs: 10_000,
};

const ENV_NAMES: Record<keyof ServerLimits, string> = {
  headersTimeoutMs: 'SANDBOX_HEADERS_TIMEOUT_MS',
  requestTimeoutMs: 'SANDBOX_REQUEST_TIMEOUT_MS',
  keepAliveTimeoutMs: 'SANDBOX_KEEPALIVE_TIMEOUT_MS',
  maxConnections: 'SANDBOX_MAX_CONNECTIONS',
  maxConnectionsPerClient: 'SANDBOX_MAX_CONNECTIONS_PER_CLIENT',
  shutdownGraceMs: 'SANDBOX_SHUTDOWN_GRACE_MS',
};

/**
 * The limits environment variables set, over the defaults. Behind a proxy
 * (SANDBOX_TRUST_PROXY=1) every connection comes from the proxy, so there is no per-client cap
 * unless SANDBOX_MAX_CONNECTIONS_PER_CLIENT asks for one.
 */
export function serverLimitsFromEnv(env: NodeJS.ProcessEnv): ServerLimits {
  const limits: Record<string, number> = { ...DEFAULT_SERVER_LIMITS };
  if (env.SANDBOX_TRUST_PROXY === '1') limits.maxConnectionsPerClient = 0;
  for (const [key, name] of Object.entries(ENV_NAMES)) {
    const text = env[name];
    if (text === undefined || text === '') continue;
    const n = Number(text);
    const min = key === 'shutdownGraceMs' ? 1 : 0;
    if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be a whole number of at least ${min}${min === 0 ? ' (0 is off)' : ''}, got ${text}`);
    limits[key] = n;
  }
  return checkedLimits(limits as unknown as ServerLimits);
}

function checkedLimits(limits: ServerLimits): ServerLimits {
  const { headersTimeoutMs: headers, requestTimeoutMs: request } = limits;
  if (headers > 0 && request > 0 && headers > request) {
    throw new Error(`${ENV_NAMES.headersTimeoutMs} (${headers}) must not be over ${ENV_NAMES.requestTimeoutMs} (${request}): the headers are part of the request`);
  }
  return limits;
}

export interface RunningServer {
  readonly port: number;
  readonly url: string;
  /** The address the socket is bound to (127.0.0.1 for localhost, 0.0.0.0 or :: for every interface). */
  readonly address: string;
  readonly limits: ServerLimits;
  /**
   * Stops accepting; closes connections with no request on them; answers in flight finish
   * (with Connection: close), held ones at most `graceMs`, then the connections left are cut.
   * Resolves once no request is being handled (or a second after the grace), so the store can
   * be closed. Calling it again gives the same stop.
   */
  close(graceMs?: number): Promise<void>;
}

interface Connection {
  readonly address: string;
  /** Requests dispatched on it whose response has not closed. */
  busy: number;
  /** The last request dispatched on it. */
  current?: { readonly req: IncomingMessage; readonly res: ServerResponse };
}

/** How long a connection answered for broken HTTP is read from (and the bytes dropped) before it is cut. */
const LINGER_MS = 1000;
/** How long after the grace the stop waits for handlers whose connection was cut. */
const HANDLER_WAIT_MS = 1000;

/**
 * Listens for `app`. `limits` defaults to serverLimitsFromEnv(process.env); the fields given
 * override it.
 */
export function listen(app: Hono<AppEnv>, port: number, hostname?: string, limits: Partial<ServerLimits> = {}): Promise<RunningServer> {
  const settings = checkedLimits({ ...serverLimitsFromEnv(process.env), ...limits });
  // Handlers running: the stop waits for them before the store is closed, also for those whose connection was cut.
  let handling = 0;
  let onIdle: (() => void) | undefined;
  const fetch = (request: Request, env: unknown): Response | Promise<Response> => {
    const answer = app.fetch(request, env as Parameters<typeof app.fetch>[1]);
    if (!(answer instanceof Promise)) return answer;
    handling += 1;
    return answer.finally(() => {
      handling -= 1;
      if (handling === 0) onIdle?.();
    });
  };

  return new Promise((resolve, reject) => {
    const server = serve({
      fetch,
      port,
      ...(hostname ? { hostname } : {}),
      serverOptions: {
        headersTimeout: settings.headersTimeoutMs,
        requestTimeout: settings.requestTimeoutMs,
        keepAliveTimeout: settings.keepAliveTimeoutMs,
        // Node looks for expired headers and requests this often (30 s by default, which would double the timeouts).
        connectionsCheckingInterval: 1000,
      },
    }) as Server;
    if (settings.maxConnections > 0) server.maxConnections = settings.maxConnections;

    const connections = new Map<Socket, Connection>();
    const byAddress = new Map<string, Set<Socket>>();
    let draining = false;

    const forget = (socket: Socket) => {
      const connection = connections.get(socket);
      if (!connection) return;
      connections.delete(socket);
      const mine = byAddress.get(connection.address);
      mine?.delete(socket);
      if (mine?.size === 0) byAddress.delete(connection.address);
    };

    server.on('connection', (socket: Socket) => {
      const address = socket.remoteAddress ?? '';
      let mine = byAddress.get(address);
      if (settings.maxConnectionsPerClient > 0 && mine && mine.size >= settings.maxConnectionsPerClient) {
        // Make room with the client's oldest connection that has no request in progress.
        let spare: Socket | undefined;
        for (const s of mine) {
          if (connections.get(s)!.busy === 0) {
            spare = s;
            break;
          }
        }
        if (!spare) {
          socket.destroy();
          return;
        }
        forget(spare);
        spare.destroy();
        mine = byAddress.get(address);
      }
      if (!mine) byAddress.set(address, (mine = new Set()));
      mine.add(socket);
      connections.set(socket, { address, busy: 0 });
      socket.once('close', () => forget(socket));
    });

    // Before the app's listener, so the header is set before anything is written.
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      const connection = connections.get(req.socket as Socket);
      if (connection) {
        connection.busy += 1;
        connection.current = { req, res };
        res.once('close', () => (connection.busy -= 1));
      }
      // While stopping, every answer is the connection's last.
      if (draining) res.setHeader('Connection', 'close');
    });

    const answered = new WeakSet<Duplex>();
    server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
      // A connection already answered goes on failing to parse what follows: nothing more to say.
      if (answered.has(socket)) return;
      answered.add(socket);
      socket.on('error', () => {});
      const answer = protocolAnswer(err.code, settings);
      const current = connections.get(socket as Socket)?.current;
      // The request that failed is the one being read: its own answer must not have begun.
      const failedCurrent = current !== undefined && !current.req.complete;
      // A connection that never sent a byte and timed out is just closed (browsers open spare ones).
      const silent = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' && (socket as Socket).bytesRead === 0;
      if (!answer || silent || !socket.writable || (failedCurrent && current.res.headersSent)) {
        socket.destroy();
        return;
      }
      const respond = () => {
        if (!socket.writable) {
          socket.destroy();
          return;
        }
        socket.end(answer.text);
        // The parser stops at its first error, so nothing after it can become a request: read on
        // (and drop) a moment so the client gets the answer rather than a reset. A timed-out
        // request's parser has no error, so its connection is cut as soon as the answer is out.
        if (err.code?.startsWith('HPE_') && !failedCurrent) {
          const linger = setTimeout(() => socket.destroy(), LINGER_MS);
          linger.unref();
          socket.once('close', () => clearTimeout(linger));
        } else if (socket.writableFinished) {
          socket.destroy();
        } else {
          socket.once('finish', () => socket.destroy());
        }
      };
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

    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const host = hostname && hostname !== '0.0.0.0' && hostname !== '::' ? hostname : 'localhost';
      let stopping: Promise<void> | undefined;

      const stop = async (graceMs: number): Promise<void> => {
        draining = true;
        const deadline = Date.now() + graceMs;
        // Answers not yet begun are the last on their connection too.
        for (const { current } of connections.values()) if (current && !current.res.headersSent) current.res.setHeader('Connection', 'close');
        // Connections that never sent a byte carry no request: they go now, not at the end of the grace.
        for (const [socket, connection] of connections) if (connection.busy === 0 && socket.bytesRead === 0) socket.destroy();
        await new Promise<void>((done) => {
          const force = setTimeout(() => server.closeAllConnections(), graceMs);
          force.unref();
          // A keep-alive socket whose request finishes after close() starts turns idle later; close it then too.
          const sweep = setInterval(() => server.closeIdleConnections(), 50);
          sweep.unref();
          server.close(() => {
            clearTimeout(force);
            clearInterval(sweep);
            done();
          });
          server.closeIdleConnections();
        });
        // A handler whose connection was cut may still be writing: let it get there before the store closes.
        if (handling > 0) {
          await new Promise<void>((done) => {
            const waited = setTimeout(done, Math.max(0, deadline - Date.now()) + HANDLER_WAIT_MS);
            waited.unref();
            onIdle = () => {
              clearTimeout(waited);
              done();
            };
          });
        }
      };

      resolve({
        port: address.port,
        url: `http://${host}:${address.port}`,
        address: address.address,
        limits: settings,
        close: (graceMs = 5000) => (stopping ??= stop(graceMs)),
      });
    });
  });
}

interface ProtocolAnswer {
  readonly status: number;
  readonly text: string;
  readonly requestId: string;
}

/** The raw HTTP/1.1 answer in the JSON envelope for a client error Node's parser or timers report; undefined for none. */
export function protocolAnswer(code: string | undefined, limits: Pick<ServerLimits, 'headersTimeoutMs' | 'requestTimeoutMs'>): ProtocolAnswer | undefined {
  const found = protocolProblem(code, limits);
  if (!found) return undefined;
  const [status, description] = found;
  const requestId = newRequestId();
  const body = JSON.stringify({ code: status, description });
  const text =
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    'Content-Type: application/json; charset=UTF-8\r\n' +
    // Like every answer of the app, one an operator can find in the server log by its id.
    `Request-Id: ${requestId}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body;
  return { status, text, requestId };
}

function protocolProblem(code: string | undefined, limits: Pick<ServerLimits, 'headersTimeoutMs' | 'requestTimeoutMs'>): [number, string] | undefined {
  const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [
        408,
        `The request did not arrive in time (headers within ${seconds(limits.headersTimeoutMs)}, the whole request within ${seconds(limits.requestTimeoutMs)}); nothing was done: send it again in one go.`,
      ];
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'The request headers are over the limit of 16 KiB: send fewer or shorter headers.'];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'The chunk extensions of the body are over the limit: send the body without them.'];
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return [400, 'Content-Length and Transfer-Encoding were both sent, or the Transfer-Encoding is not chunked: send one of them (Transfer-Encoding: chunked last). Nothing was done.'];
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
      return [400, 'The Content-Length header is not a single whole number.'];
    case 'HPE_INVALID_CHUNK_SIZE':
      return [400, 'A chunk of the chunked body does not start with a hexadecimal size.'];
    default:
      if (code?.startsWith('HPE_')) return [400, `The request is not valid HTTP/1.1 (${code}); nothing was done.`];
      // ECONNRESET and the like: the client has gone, there is no one to answer.
      return undefined;
  }
}
