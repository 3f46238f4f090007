/**
 * payreq-sandbox listen (SPEC 22): holds the merchant's webhook stream open on a (hosted)
 * sandbox, POSTs each delivery to a local URL with the headers and signature the sandbox made,
 * and reports the local answer back, so retries, the delivery log and readiness work as with a
 * public URL. Reconnects by itself, with back-off, after the stream drops.
 */
import { EXIT_CODES } from './cli.js';
import { terminal } from './command-output.js';
import { stopWhenLauncherEnds } from '../bin/launchers.js';

export interface ListenCommandOptions {
  readonly baseUrl: string;
  readonly key: string;
  readonly forwardTo: string;
  /** Comma-separated event types (default: every one). */
  readonly events?: string;
  /** False with --no-color; colours are used only on a terminal and without NO_COLOR anyway. */
  readonly color?: boolean;
}

/** What the sandbox writes for one attempt (GET /sandbox/v1/webhook/stream, event `delivery`). */
interface DeliveryEvent {
  readonly delivery_id: string;
  readonly attempt: number;
  readonly event_type: string;
  readonly payment_id: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** The local receiver gets what a sandbox's direct attempt waits for, 5 s. */
const FORWARD_TIMEOUT_MS = 5_000;
/** No byte (not even a heartbeat, every 15 s) for this long: the stream is taken for dead. */
const SILENCE_MS = 45_000;
const BACKOFF_MS = [1_000, 2_000, 5_000, 10_000, 30_000];

/** Why a connection ended without a stream: `fatal` stops the command (a wrong key, a refused request). */
class Refused extends Error {
  constructor(
    message: string,
    readonly fatal: boolean,
  ) {
    super(message);
  }
}

export async function listenCommand(options: ListenCommandOptions, stop: AbortSignal = stopSignal()): Promise<number> {
  const base = options.baseUrl.replace(/\/+$/, '');
  const paint = painter(options.color !== false && process.stdout.isTTY === true && !process.env.NO_COLOR);
  const say = terminal.out;
  let connectedOnce = false;
  for (let failures = 0; !stop.aborted; ) {
    try {
      await streamOnce(base, options, stop, paint, say, () => {
        connectedOnce = true;
        failures = 0;
      });
      if (stop.aborted) break;
      failures++;
      say(paint.yellow(`stream closed by the sandbox; reconnecting in ${backoff(failures) / 1000} s`));
    } catch (err) {
      if (stop.aborted) break;
      const message = err instanceof Error ? err.message : String(err);
      if ((err instanceof Refused && err.fatal) || !connectedOnce) {
        terminal.err(`listen: ${message}`);
        return EXIT_CODES.couldNotRun;
      }
      failures++;
      say(paint.yellow(`stream lost (${message}); reconnecting in ${backoff(failures) / 1000} s`));
    }
    await sleep(backoff(failures), stop);
  }
  return EXIT_CODES.ok;
}

/** Connects once and forwards until the stream ends; throws what kept it from connecting or cut it. */
async function streamOnce(base: string, options: ListenCommandOptions, stop: AbortSignal, paint: Painter, say: (line: string) => void, connected: () => void): Promise<void> {
  const url = `${base}/sandbox/v1/webhook/stream${options.events ? `?events=${encodeURIComponent(options.events)}` : ''}`;
  const cut = new AbortController();
  const onStop = () => cut.abort();
  stop.addEventListener('abort', onStop);
  let silence: NodeJS.Timeout | undefined;
  try {
    let res: Response;
    try {
      res = await fetch(url, { headers: { 'Service-Api-Key': options.key, Accept: 'text/event-stream' }, signal: AbortSignal.any([cut.signal, AbortSignal.timeout(15_000)]) });
    } catch (err) {
      throw new Error(`could not reach the sandbox at ${base} (${causeOf(err)})`);
    }
    if (res.status !== 200 || !res.body) {
      const description = await descriptionOf(res);
      if (res.status === 401) throw new Refused(`the sandbox at ${base} refused the key (401): ${description}`, true);
      throw new Refused(`${url} answered ${res.status}: ${description}`, res.status < 500 && res.status !== 429);
    }
    connected();
    const decoder = new TextDecoder();
    const reader = res.body.getReader();
    let buffer = '';
    const alive = () => {
      clearTimeout(silence);
      silence = setTimeout(() => cut.abort(new Error(`nothing received for ${SILENCE_MS / 1000} s`)), SILENCE_MS);
    };
    alive();
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        throw new Error(causeOf(cut.signal.reason ?? err));
      }
      if (chunk.done) return;
      alive();
      buffer += decoder.decode(chunk.value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const { event, data } = parseEvent(block);
        if (event === 'hello') hello(JSON.parse(data) as Record<string, unknown>, options, paint, say);
        else if (event === 'delivery') void forward(JSON.parse(data) as DeliveryEvent, base, options, paint, say);
      }
    }
  } finally {
    clearTimeout(silence);
    stop.removeEventListener('abort', onStop);
    cut.abort();
  }
}

function hello(data: Record<string, unknown>, options: ListenCommandOptions, paint: Painter, say: (line: string) => void): void {
  const events = Array.isArray(data.events) ? (data.events as string[]).join(', ') : 'every event';
  say(`${paint.green('Ready.')} Forwarding ${events} of ${String(data.payee_id)} to ${options.forwardTo} (Ctrl-C stops).`);
  say(`Webhook secret: ${paint.bold(String(data.secret))} (verify Sandbox-Signature with it)`);
}

/** POSTs one delivery to the local URL as the sandbox would, prints its line, reports the answer back. */
async function forward(delivery: DeliveryEvent, base: string, options: ListenCommandOptions, paint: Painter, say: (line: string) => void): Promise<void> {
  const started = performance.now();
  let status: number | null = null;
  let error: string | null = null;
  try {
    const res = await fetch(options.forwardTo, { method: 'POST', headers: delivery.headers, body: delivery.body, redirect: 'manual', signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) });
    status = res.status;
    await res.body?.cancel();
  } catch (err) {
    error = causeOf(err);
  }
  const latencyMs = Math.round(performance.now() - started);
  const shown = status === null ? paint.red(`failed: ${error}`) : status >= 200 && status < 300 ? paint.green(String(status)) : paint.red(String(status));
  const retry = delivery.attempt > 1 ? ` (attempt ${delivery.attempt})` : '';
  say(`${new Date().toISOString()}  ${delivery.event_type.padEnd(18)} ${delivery.payment_id}  -> ${shown}  ${latencyMs} ms${retry}`);
  try {
    const res = await fetch(`${base}/sandbox/v1/webhook/stream/answers`, {
      method: 'POST',
      headers: { 'Service-Api-Key': options.key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ delivery_id: delivery.delivery_id, attempt: delivery.attempt, status, latency_ms: latencyMs, error }),
      signal: AbortSignal.timeout(15_000),
    });
    if (res.status !== 200) say(paint.yellow(`  answer not taken (${res.status}): ${await descriptionOf(res)}`));
  } catch (err) {
    say(paint.yellow(`  answer not sent (${causeOf(err)}): the sandbox counts the attempt as a timeout`));
  }
}

/** The `event:` and joined `data:` lines of one Server-Sent Events block; comments (heartbeats) have neither. */
export function parseEvent(block: string): { event: string; data: string } {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return { event: data.length === 0 ? '' : event, data: data.join('\n') };
}

async function descriptionOf(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { description?: string };
    return body.description ?? 'no description';
  } catch {
    return 'no description';
  }
}

/** The innermost reason, in a line (fetch wraps the socket's error in "fetch failed"). */
function causeOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err.name === 'TimeoutError') return 'no answer in time';
  const cause = (err as Error & { cause?: unknown }).cause;
  return cause instanceof Error ? causeOf(cause) : (err as NodeJS.ErrnoException).code ?? err.message;
}

function backoff(failures: number): number {
  return BACKOFF_MS[Math.min(Math.max(failures - 1, 0), BACKOFF_MS.length - 1)]!;
}

function sleep(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    stop.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/** Aborted by Ctrl-C or SIGTERM, or when the npm that started it ends. */
function stopSignal(): AbortSignal {
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  stopWhenLauncherEnds(() => stop.abort());
  return stop.signal;
}

type Painter = Record<'green' | 'red' | 'yellow' | 'bold', (text: string) => string>;

function painter(on: boolean): Painter {
  const ansi = (code: number) => (text: string) => (on ? `\u001b[${code}m${text}\u001b[0m` : text);
  return { green: ansi(32), red: ansi(31), yellow: ansi(33), bold: ansi(1) };
}
