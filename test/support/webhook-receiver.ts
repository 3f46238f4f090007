/** A real webhook receiver on loopback, for the webhook tests, and the signature check a receiver makes. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  /** The body as sent, byte for byte (as UTF-8 text). */
  text: string;
  /** The body's bytes, as signed. */
  raw: Buffer;
  /** The local address the sandbox connected to. */
  localAddress: string | undefined;
}

/** Answers the statuses queued in `replies`, then 200; keeps every request it got. */
export async function receiver(host = '127.0.0.1'): Promise<{ url: string; received: Received[]; replies: number[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const replies: number[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const text = raw.toString('utf8');
      received.push({ headers: req.headers, body: JSON.parse(text) as Record<string, unknown>, text, raw, localAddress: req.socket.localAddress });
      res.statusCode = replies.shift() ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://${host}:${port}/hooks`, received, replies, close: () => new Promise((r) => server.close(() => r())) };
}

/**
 * What a receiver does before trusting a delivery, written here from the README's recipe (not
 * with the sandbox's own code): Sandbox-Signature t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<raw body>"> with the webhook secret, and t no older than `toleranceSeconds`.
 */
export function signedWith(received: Received, secret: string, options: { now?: number; toleranceSeconds?: number } = {}): boolean {
  const header = received.headers['sandbox-signature'];
  if (typeof header !== 'string') return false;
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!/^\d+$/.test(parts.t ?? '') || !/^[0-9a-f]{64}$/.test(parts.v1 ?? '')) return false;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (options.toleranceSeconds ?? 300)) return false;
  const expected = createHmac('sha256', secret).update(Buffer.concat([Buffer.from(`${parts.t}.`), received.raw])).digest();
  return timingSafeEqual(expected, Buffer.from(parts.v1!, 'hex'));
}
