/** Temporary directories for store files, removed after each test file. */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const made: string[] = [];

export function tempDir(prefix = 'payreq-test-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** The write-ahead log segments beside a data file, oldest first. */
export function walSegments(dataFile: string): string[] {
  const dir = path.dirname(dataFile);
  const prefix = `${path.basename(dataFile)}.wal.`;
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix))
    .sort((a, b) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length)))
    .map((f) => path.join(dir, f));
}
