/**
 * The minimum body rate: a request whose body trickles in holds a connection (and counts toward
 * the caps) while sending almost nothing. After its headers a body has BODY_GRACE_MS free, then
 * must keep up with `bodyMinBytesPerSecond` on average; one that falls behind is answered 408 in
 * the envelope and its connection closed, as Node's own request timeout is (malformed-http.ts).
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Connection, ConnectionTable } from './connection-caps.js';
import type { ServerLimits } from './limits.js';

/** The start of every body is free: a client's first packet may take a round trip or two. */
export const BODY_GRACE_MS = 2000;
/** How often bodies in progress are checked against the rate. */
const CHECK_EVERY_MS = 250;

/** The error code the 408 of a body that fell behind is answered for (protocolAnswer). */
export const BODY_TOO_SLOW = 'ERR_SANDBOX_BODY_TOO_SLOW';

type RateLimits = Pick<ServerLimits, 'bodyMinBytesPerSecond' | 'requestTimeoutMs'>;

/** True when the body of the connection's current request has fallen behind the minimum rate at `now`. */
export function bodyTooSlow(socket: Socket, connection: Connection, limits: RateLimits, now: number): boolean {
  const current = connection.current;
  if (!current || current.req.complete || current.res.headersSent) return false;
  // Past the request timeout the 408 is Node's to give (it looks once a second): one answer, not two racing.
  if (limits.requestTimeoutMs > 0 && now - current.at >= limits.requestTimeoutMs) return false;
  // Bytes the app has not read yet are the app's delay, not the client's.
  if (current.req.readableLength > 0) return false;
  const elapsed = now - current.at - BODY_GRACE_MS;
  if (elapsed <= 0) return false;
  const announced = Number(current.req.headers['content-length'] ?? Number.POSITIVE_INFINITY);
  const due = Math.min(announced, (elapsed / 1000) * limits.bodyMinBytesPerSecond);
  return socket.bytesRead - current.bytesRead < due;
}

/** Checks the bodies in progress of `server` against the minimum rate (off at 0). */
export function enforceBodyRate(server: Server, connections: ConnectionTable, limits: RateLimits): void {
  if (limits.bodyMinBytesPerSecond <= 0) return;
  const timer = setInterval(() => {
    const now = Date.now();
    for (const [socket, connection] of connections.entries()) {
      if (!bodyTooSlow(socket, connection, limits, now)) continue;
      // Answered like Node's own request timeout: the 408 in the envelope, then the connection closed.
      server.emit('clientError', Object.assign(new Error('request body below the minimum rate'), { code: BODY_TOO_SLOW }), socket);
    }
  }, CHECK_EVERY_MS);
  timer.unref();
  server.once('close', () => clearInterval(timer));
}
