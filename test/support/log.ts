/** A real pino logger for a sandbox (createSandbox's `log`) whose lines tests read back, parsed. */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Logger } from 'pino';

export function capturedLog(): { readonly log: Logger; readonly lines: Record<string, unknown>[]; requestLines(): Promise<Record<string, unknown>[]> } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return {
    log: pino({ base: null }, sink),
    lines,
    // pino hands lines to the stream a turn later: wait for it before reading.
    requestLines: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return lines.filter((l) => l.msg === 'request');
    },
  };
}
