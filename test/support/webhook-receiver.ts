/** A real webhook receiver on loopback, for the webhook tests. */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  /** The body as sent, byte for byte (as UTF-8 text). */
  text: string;
}

/** Answers the statuses queued in `replies`, then 200; keeps every request it got. */
export async function receiver(): Promise<{ url: string; received: Received[]; replies: number[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const replies: number[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: req.headers, body: JSON.parse(text) as Record<string, unknown>, text });
      res.statusCode = replies.shift() ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, received, replies, close: () => new Promise((r) => server.close(() => r())) };
}
