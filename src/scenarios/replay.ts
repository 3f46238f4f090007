/**
 * The replay runner: files in parallel, steps in order, against an in-process sandbox
 * (memory store, one fresh merchant per file) or a sandbox at a base URL.
 */
import { randomBytes } from 'node:crypto';
import { createSandbox } from '../index.js';
import type { Sandbox } from '../index.js';
import { DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_MS } from './defaults.js';
import { httpTransport } from './http.js';
import { findScenarioFiles, loadScenarioFile, ScenarioFileError } from './load.js';
import type { LoadedScenario } from './load.js';
import { runScenario } from './run-scenario.js';
import type { FileResult, ReplayTarget } from './run-scenario.js';
import type { ReplayWait } from './waits.js';

export interface ReplayOptions {
  /** A running sandbox to replay against; without it (and without `sandbox`), an in-process one is started. */
  readonly baseUrl?: string;
  /** An in-process sandbox of your own (createSandbox) to replay against. */
  readonly sandbox?: Pick<Sandbox, 'fetch'>;
  /** Files replayed at once (default 4). */
  readonly concurrency?: number;
  /** Default client timeout of each request, ms (default 10000). */
  readonly timeoutMs?: number;
  /** Sent when enrolling merchants, for a sandbox started with SANDBOX_ADMIN_TOKEN. */
  readonly adminToken?: string;
  /** Variables for {{env.NAME}} (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Called as each file finishes, for streaming output. */
  readonly onFile?: (result: FileResult) => void;
  /** Called as a wait for a 429's Retry-After starts (the sandbox's enrolment or rate limit). */
  readonly onWait?: (wait: ReplayWait) => void;
  /** Stops the replay (Ctrl-C): no file starts after it, and the report has the files that finished. */
  readonly signal?: AbortSignal;
}

export interface ReplayReport {
  /** "in-process sandbox" or the base URL. */
  readonly target: string;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly passed: number;
  readonly failed: number;
  /** Sorted by path: the files that finished. */
  readonly files: readonly FileResult[];
  /** Set when `signal` stopped the replay: the files cut short (running then) and how many never started. */
  readonly interrupted?: { readonly cutShort: readonly string[]; readonly notStarted: number };
}

const IN_PROCESS_BASE = 'http://sandbox.test';

/** The replay did not start: no files, or a sandbox that cannot be reached (said once, not once per file). */
export class ReplayCouldNotRun extends Error {}

/** Loads the files under `paths` and replays them; a malformed file is a failed file, not a crash. */
export async function replay(paths: readonly string[], options: ReplayOptions = {}): Promise<ReplayReport> {
  const files = await findScenarioFiles(paths);
  if (files.length === 0) throw new ReplayCouldNotRun(`no scenario files (.yaml, .yml, .json) under ${paths.join(', ')}`);
  const loaded = await Promise.all(
    files.map((file) =>
      loadScenarioFile(file).catch((err: unknown) => {
        if (err instanceof ScenarioFileError) return err;
        throw err;
      }),
    ),
  );
  return replayScenarios(loaded, options);
}

export async function replayScenarios(items: readonly (LoadedScenario | ScenarioFileError)[], options: ReplayOptions = {}): Promise<ReplayReport> {
  const startedAt = new Date();
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const { target, close } = await openTarget(options);
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  let refs = 0;
  const runOptions = {
    timeoutMs,
    env: options.env ?? process.env,
    freshRef: (prefix = 'ref') => `${prefix}-${runId}-${++refs}`,
    ...(options.adminToken ? { adminToken: options.adminToken } : {}),
    ...(options.onWait ? { onWait: options.onWait } : {}),
  };

  const results: (FileResult | undefined)[] = new Array(items.length);
  const running = new Set<number>();
  const { signal } = options;
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal?.aborted) {
      const i = next++;
      const item = items[i]!;
      running.add(i);
      const result =
        item instanceof ScenarioFileError
          ? { file: item.file, name: '(malformed scenario file)', status: 'failed' as const, durationMs: 0, steps: [], error: item.message }
          : await runScenario(item, target, runOptions);
      // A file that ends after the stop is not reported: the report was made without it.
      if (signal?.aborted) return;
      running.delete(i);
      results[i] = result;
      options.onFile?.(result);
    }
  };
  let stopped = false;
  try {
    const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
    stopped = (await untilDoneOrAborted(Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker)), signal)) === 'aborted';
  } finally {
    // Stopped: files still running are cut short, so closing does not wait for them long.
    await (stopped ? Promise.race([close().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1000).unref())]) : close());
  }
  const files = results.filter((r): r is FileResult => r !== undefined);
  const failed = files.filter((r) => r.status === 'failed').length;
  return {
    target: target.label,
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - started),
    passed: files.length - failed,
    failed,
    files,
    ...(stopped ? { interrupted: { cutShort: [...running].sort((a, b) => a - b).map((i) => items[i]!.file), notStarted: items.length - next } } : {}),
  };
}

/** The work's end, or 'aborted' as soon as the signal says so (the work goes on, unreported; its failure too). */
function untilDoneOrAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T | 'aborted'> {
  if (!signal) return work;
  work.catch(() => {});
  if (signal.aborted) return Promise.resolve('aborted');
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

async function openTarget(options: ReplayOptions): Promise<{ target: ReplayTarget; close: () => Promise<void> }> {
  if (options.baseUrl) {
    const baseUrl = options.baseUrl.replace(/\/+$/, '');
    await reachable(baseUrl, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const http = httpTransport();
    return { target: { baseUrl, transport: http.transport, label: baseUrl }, close: async () => http.close() };
  }
  if (options.sandbox) {
    const sandbox = options.sandbox;
    return { target: { baseUrl: IN_PROCESS_BASE, transport: (r) => sandbox.fetch(r), label: 'in-process sandbox' }, close: async () => {} };
  }
  // A held `timeout` fault ends when the client aborts its Request, so nothing outlives the replay.
  const sandbox = await createSandbox({ store: 'memory' });
  return {
    target: { baseUrl: IN_PROCESS_BASE, transport: (r) => sandbox.fetch(r), label: 'in-process sandbox (memory store)' },
    close: () => sandbox.close(),
  };
}

/** Any HTTP answer will do (a 503 of a sandbox whose database is down is for the steps to report); no answer at all ends the replay once. */
async function reachable(baseUrl: string, timeoutMs: number): Promise<void> {
  try {
    const res = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : err instanceof Error ? err.message : String(err);
    throw new ReplayCouldNotRun(`cannot reach the sandbox at ${baseUrl} (${cause}): start it (npm start) or check --base-url; no scenario was run.`);
  }
}
