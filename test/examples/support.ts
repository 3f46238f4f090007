/**
 * The language examples of examples/ as integrators run them: each script a child process with
 * its secret in the environment, and a webhook receiver that hands each delivery, header and raw
 * bytes, to the verifier script and answers what it decides.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Language {
  readonly name: string;
  /** The command of each example: the interpreter and its arguments before the script's own. */
  readonly signCreate: readonly string[];
  readonly verifyWebhook: readonly string[];
}

export const LANGUAGES: readonly Language[] = [
  // -B: no __pycache__ written into examples/.
  { name: 'Python', signCreate: ['python3', '-B', 'examples/python/sign_create.py'], verifyWebhook: ['python3', '-B', 'examples/python/verify_webhook.py'] },
  { name: 'PHP', signCreate: ['php', 'examples/php/sign_create.php'], verifyWebhook: ['php', 'examples/php/verify_webhook.php'] },
];

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs one example to its end (at most 10 s), `stdin` written to it. */
export function runExample(command: readonly string[], args: readonly string[], env: Record<string, string>, stdin: string | Buffer = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, [...command.slice(1), ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 10_000 });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
    child.stdin.end(stdin);
  });
}

/** The body (JSON text, so 7.0 stays 7.0 for the script) signed by the language's sign_create: its printed JSON, parsed. */
export async function signedByExample(language: Language, bodyText: string, salt: string): Promise<Record<string, unknown>> {
  const run = await runExample(language.signCreate, [bodyText], { SIGNING_SALT: salt });
  expect(run.stderr, `${language.name} sign_create wrote to stderr`).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

export interface Judged {
  readonly header: string;
  readonly raw: Buffer;
  readonly run: Run;
}

/** A receiver that answers 204 when the language's verifier accepts a delivery, 401 when it refuses it. */
export async function verifyingReceiver(language: Language, secret: () => string): Promise<{ url: string; judged: Judged[]; close(): Promise<void> }> {
  const judged: Judged[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const header = String(req.headers['sandbox-signature'] ?? '');
      void runExample(language.verifyWebhook, [header], { WEBHOOK_SECRET: secret() }, raw).then(
        (run) => {
          judged.push({ header, raw, run });
          res.writeHead(run.code === 0 ? 204 : 401).end();
        },
        () => res.writeHead(500).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, judged, close: () => new Promise((r) => server.close(() => r())) };
}

/** One JSON call to a listening sandbox. */
export async function send(base: string, method: string, route: string, key: string | undefined, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { ...(key ? { 'Service-Api-Key': key } : {}), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}
