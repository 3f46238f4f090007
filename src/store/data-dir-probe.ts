// /healthz must see a full or read-only disk before a change fails; at most once a second, so polling costs nothing.
import { randomBytes } from 'node:crypto';
import { readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** `started` is on performance.now(), as append failures are dated, so the two can be compared. */
type ProbeResult = { readonly at: number; readonly started: number; readonly problem?: string };

export class DataDirProbe {
  private last: ProbeResult | undefined;
  private running: Promise<ProbeResult> | null = null;

  constructor(
    private readonly dataFile: string,
    private readonly clock: () => number,
  ) {}

  check(): Promise<ProbeResult> {
    if (this.last && this.clock() - this.last.at < 1_000) return Promise.resolve(this.last);
    this.running ??= this.probe().finally(() => (this.running = null));
    return this.running;
  }

  private async probe(): Promise<ProbeResult> {
    const [at, started, file] = [this.clock(), performance.now(), `${this.dataFile}.healthz-probe`];
    // A few hundred bytes, which a full disk has no block for; JSON, like every file of the store.
    const content = JSON.stringify(randomBytes(256).toString('hex'));
    let problem: string | undefined;
    try {
      await writeFile(file, content, { flush: true });
      if ((await readFile(file, 'utf8')) !== content) problem = `a file written in the data directory ${path.dirname(this.dataFile)} read back different from what was written: the disk returns wrong data`;
    } catch (err) {
      problem = diskProblem(err, this.dataFile);
    }
    await unlink(file).catch(() => undefined);
    return (this.last = { at, started, problem });
  }
}

const SAID: Record<string, string> = {
  ENOSPC: 'is full (ENOSPC): %s until space is freed there',
  EDQUOT: 'has used up its disk quota (EDQUOT): %s until space is freed or the quota raised',
  EROFS: 'is read-only (EROFS): %s until it is mounted read-write',
  EACCES: 'is not writable by this process (EACCES): %s until its owner or permissions are fixed',
  EPERM: 'is not writable by this process (EPERM): %s until its owner or permissions are fixed',
  ENOENT: 'does not exist (ENOENT): %s',
  EIO: 'reports input/output errors (EIO): %s; check the device',
};

/** For an operator: what is wrong and what to do, never a stack. */
export function diskProblem(err: unknown, dataFile: string): string {
  const dir = path.dirname(dataFile);
  const code = (err as { code?: unknown } | null)?.code;
  const cannot = `no change can be written to ${dataFile}`;
  const said = typeof code === 'string' && Object.hasOwn(SAID, code) ? SAID[code] : undefined;
  if (said) return `the data directory ${dir} ${said.replace('%s', cannot)}`;
  return `the data directory ${dir} cannot be written (${typeof code === 'string' ? code : err instanceof Error ? err.message : String(err)}): ${cannot}`;
}
