/** `payreq-sandbox replay`: runs the replay, prints the report, writes JUnit, answers the exit code. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { terminal } from '../command-output.js';
import type { CommandOutput } from '../command-output.js';
import { replay, ReplayCouldNotRun } from './replay.js';
import { formatFileResult, formatSummary } from './report-human.js';
import { junitXml } from './report-junit.js';
import { describeWait } from './waits.js';

export interface ReplayCommandOptions {
  readonly baseUrl?: string;
  readonly concurrency?: number;
  readonly timeout?: number;
  readonly junit?: string;
  readonly reporter?: 'human' | 'json';
  readonly adminToken?: string;
  /** Show the steps of failing files only. */
  readonly quiet?: boolean;
  /** false: never colour; otherwise colour when stdout is a terminal. */
  readonly color?: boolean;
  /** Ctrl-C: stops the replay; what ran is still reported (and written to --junit). */
  readonly signal?: AbortSignal;
}

/** The exit code of a replay stopped by Ctrl-C, as a shell gives a command ended by SIGINT (128 + 2). */
export const INTERRUPTED_EXIT_CODE = 130;


/** Answers the exit code: 0 when every file passed, 1 when one failed, 2 when the replay could not run or its report not be written, 130 when stopped by the signal. */
export async function replayCommand(paths: readonly string[], options: ReplayCommandOptions = {}, output: CommandOutput = terminal): Promise<number> {
  try {
    return await replayAndReport(paths, options, output);
  } catch (err) {
    if (!(err instanceof ReplayCouldNotRun)) throw err;
    output.err(`replay: ${err.message}`);
    return 2;
  }
}

async function replayAndReport(paths: readonly string[], options: ReplayCommandOptions, output: CommandOutput): Promise<number> {
  const human = (options.reporter ?? 'human') === 'human';
  // Colour only on a terminal; --no-color (color: false) turns it off there too.
  const color = options.color !== false && process.stdout.isTTY === true && !process.env.NO_COLOR;
  const view = { color, steps: !options.quiet };
  const report = await replay(paths, {
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    ...(options.timeout ? { timeoutMs: options.timeout } : {}),
    ...(options.adminToken ? { adminToken: options.adminToken } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(human ? { onFile: (result) => output.out(formatFileResult(result, view)) } : {}),
    // On stderr, so a JSON report on stdout stays whole.
    onWait: (wait) => output.err(describeWait(wait)),
  });
  if (human) output.out(formatSummary(report, view));
  else output.out(JSON.stringify(report, null, 2));
  if (options.junit) {
    try {
      await mkdir(dirname(options.junit), { recursive: true });
      await writeFile(options.junit, junitXml(report));
    } catch (err) {
      throw new ReplayCouldNotRun(`could not write the JUnit report ${options.junit} (${err instanceof Error ? err.message : String(err)})`);
    }
    if (human) output.out(`JUnit report: ${options.junit}`);
  }
  if (report.interrupted) return INTERRUPTED_EXIT_CODE;
  return report.failed === 0 ? 0 : 1;
}
