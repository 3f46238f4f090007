/**
 * Clients from chosen source addresses (127.0.0.2, 127.0.0.3, ... all reach a server on
 * 127.0.0.1; inside a test's own network namespace, addresses of an IPv6 /64): a victim's timed
 * requests, and attackers that hold connections open and open a new one when one is closed.
 */
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { parseReply } from './raw-http.js';
import type { RawReply } from './raw-http.js';

export interface Timed extends RawReply {
  /** From connecting to the end of the exchange. */
  readonly ms: number;
}

/**
 * Sends `request` over a new connection from `from` to `host`:`port` and collects the answer
 * until the server closes the connection, a whole answer has arrived, or `waitMs` passes.
 */
export function exchangeFrom(port: number, from: string, request: string, { host = '127.0.0.1', waitMs = 10_000 } = {}): Promise<Timed> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect({ port, host, localAddress: from }, () => socket.write(request));
    let text = '';
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseReply(text, closed), ms: Date.now() - started });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      const reply = parseReply(text, false);
      if (reply.status > 0 && Buffer.byteLength(reply.body) >= Number(reply.headers['content-length'] ?? Infinity)) finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
  });
}

export interface Attack {
  /** The answers attackers' connections got before they closed (status 0: closed without one). */
  readonly answers: RawReply[];
  /** Connection attempts so far, reconnections included. */
  opened(): number;
  /** Connections open right now. */
  open(): number;
  stop(): void;
}

/**
 * From each of `addresses`, `perAddress` connections that each write `request` (nothing at all
 * when it is empty) and hold; each one closed is replaced `reconnectMs` later (never when
 * negative), until stop().
 */
export function holdConnections(port: number, addresses: readonly string[], perAddress: number, request: string, { host = '127.0.0.1', reconnectMs = 20 } = {}): Attack {
  const answers: RawReply[] = [];
  const live = new Set<Socket>();
  let opened = 0;
  let stopped = false;
  /** Opens a connection from `from`, and once it is connected the next of `more` (one at a time per address: a burst of thousands would overflow the listen backlog). */
  const hold = (from: string, more = 0) => {
    if (stopped) return;
    opened += 1;
    let followed = false;
    // The next one once this one is connected, or refused.
    const next = () => {
      if (followed || more <= 0) return;
      followed = true;
      hold(from, more - 1);
    };
    const socket = connect({ port, host, localAddress: from }, () => {
      if (request) socket.write(request);
      next();
    });
    live.add(socket);
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      next();
      live.delete(socket);
      answers.push(parseReply(text, true));
      // A persistent attacker: a little later, as a script looping on connect would.
      if (!stopped && reconnectMs >= 0) setTimeout(() => hold(from), reconnectMs);
    });
  };
  for (const from of addresses) hold(from, perAddress - 1);
  return {
    answers,
    opened: () => opened,
    open: () => live.size,
    stop: () => {
      stopped = true;
      for (const socket of live) socket.destroy();
    },
  };
}

/** 127.0.0.<first> onwards, `count` of them. */
export function loopbackAddresses(first: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `127.0.0.${first + i}`);
}

/** The highest of `values` but for the top `1 - q` share (q = 0.99: the p99). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
}
