/** The lines of a file store's file, each parsed on its own, and read by jq too where it is installed (scripts/ensure-jq.sh). */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';

/** Every line of the file, parsed: each one is JSON on its own (what jq reads too, when it is installed). */
export function jsonLines(file: string): Record<string, unknown>[] {
  const text = readFileSync(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  const lines = text.slice(0, -1).split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  let jq: string | undefined;
  try {
    jq = execFileSync('jq', ['-c', '.', file], { encoding: 'utf8' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (jq !== undefined) expect(jq.trim().split('\n')).toHaveLength(lines.length);
  return lines;
}

/** The generation a file store's snapshot names in its first line (0 before the first snapshot). */
export function snapshotGeneration(dataFile: string): number {
  if (!existsSync(dataFile)) return 0;
  return Number((JSON.parse(readFileSync(dataFile, 'utf8').split('\n', 1)[0]!) as { generation: unknown }).generation);
}
