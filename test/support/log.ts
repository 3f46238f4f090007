/** A real pino logger for a sandbox (createSandbox's `log`) or a store (its `logger`) whose lines tests read back, parsed. */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Level, Logger } from 'pino';

export interface CapturedLog {
  readonly log: Logger;
  /** Every line written, parsed, in order. */
  readonly lines: Record<string, unknown>[];
  requestLines(): Promise<Record<string, unknown>[]>;
  /** The lines that are not request lines: the events an operator should see. */
  events(): Record<string, unknown>[];
  /** Every line as written, to look for what must never be in one. */
  text(): string;
}

/** pino's numbers of its levels, as the lines carry them. */
export const LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const;

export function capturedLog(level: Level = 'info'): CapturedLog {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      raw.push(chunk.toString());
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return {
    log: pino({ base: null, level }, sink),
    lines,
    // pino hands lines to the stream a turn later: wait for it before reading.
    requestLines: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return lines.filter((l) => l.msg === 'request');
    },
    events: () => lines.filter((l) => l.msg !== 'request'),
    text: () => raw.join(''),
  };
}

/** A stack in a line as written: its frames (a newline escaped, then "at"), or a stack field. */
export const STACK_TRACE = /\\n\s+at |"stack":/;
