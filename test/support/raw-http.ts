/** Raw HTTP/1.1 over net sockets: for requests fetch will not send (broken, slow, idle) and for answers read as bytes. */
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import http from 'node:http';

export interface RawReply {
  /** Everything the server wrote before it closed the connection or went quiet. */
  readonly text: string;
  /** The status of the first answer, or 0 when there was none. */
  readonly status: number;
  /** The header block of the first answer, lower-cased names. */
  readonly headers: Record<string, string>;
  /** The body of the first answer (by its Content-Length). */
  readonly body: string;
  /** True when the server closed the connection (rather than the wait running out). */
  readonly closed: boolean;
}

export function parseReply(text: string, closed: boolean): RawReply {
  const end = text.indexOf('\r\n\r\n');
  if (!/^HTTP\/1\.1 \d{3}/.test(text) || end < 0) return { text, status: 0, headers: {}, body: '', closed };
  const lines = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? text.length);
  return { text, status: Number(lines[0]!.split(' ')[1]), headers, body: text.slice(end + 4, end + 4 + length), closed };
}

/**
 * Writes `text` (all of it, or byte by byte every `byteEveryMs`) and collects what the server
 * answers until it closes the connection or `waitMs` passes without it closing.
 */
export function rawExchange(port: number, text: string | Buffer, { end = false, waitMs = 2000, byteEveryMs = 0 } = {}): Promise<RawReply> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text, 'latin1');
    let received = '';
    let settled = false;
    let drip: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(drip);
      socket.destroy();
      resolve(parseReply(received, closed));
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.on('connect', () => {
      if (byteEveryMs <= 0) {
        socket.write(bytes, () => {
          if (end) socket.end();
        });
        return;
      }
      let i = 0;
      drip = setInterval(() => {
        if (i >= bytes.length || socket.destroyed) {
          clearInterval(drip);
          if (end && !socket.destroyed) socket.end();
          return;
        }
        socket.write(bytes.subarray(i, i + 1));
        i += 1;
      }, byteEveryMs);
    });
  });
}

/** Opens `count` connections that send nothing; resolves once all are connected. */
export async function idleSockets(port: number, count: number): Promise<Socket[]> {
  const sockets = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1', () => resolve(socket));
          socket.once('error', reject);
        }),
    ),
  );
  for (const socket of sockets) socket.on('error', () => {});
  return sockets;
}

export interface Sent {
  readonly status: number;
  readonly body: string;
  readonly headers: http.IncomingHttpHeaders;
}

/** One request through node:http with the given agent (false: a fresh connection); rejects when no answer came. */
export function httpRequest(url: string, method: string, headers: Record<string, string>, body: string | undefined, agent: http.Agent | false): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { ...headers, ...(body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(body)) }) }, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
