/**
 * Whether the file store's directory can be written and read right now, for /healthz: a small
 * file beside the data file (`<dataFile>.healthz-probe`) is written, fsynced, read back and
 * removed. At most once a second: between two probes the last answer stands, so a health
 * checker that polls often costs nothing.
 */
import { randomBytes } from 'node:crypto';
import { open, readFile, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';

/** `at`: when the probe started, on the store's clock (which paces the probes); `started`: the same on performance.now(), the clock log writers date failures by. */
export type ProbeResult =
  | { readonly ok: true; readonly at: number; readonly started: number }
  | { readonly ok: false; readonly at: number; readonly started: number; readonly problem: string };

/** A probe answers for this long before the next one runs. */
export const PROBE_EVERY_MS = 1_000;
/** What a probe writes: a few hundred bytes, which a full disk has no block for. */
const PROBE_BYTES = 512;

export class DataDirProbe {
  /** Probes made since start (tests count them). */
  runs = 0;
  private last: ProbeResult | undefined;
  private running: Promise<ProbeResult> | null = null;

  constructor(
    private readonly dataFile: string,
    /** Milliseconds; the store's clock. */
    private readonly clock: () => number,
  ) {}

  get file(): string {
    return `${this.dataFile}.healthz-probe`;
  }

  /** The last probe's answer while it is under a second old, else a new probe's (one at a time). */
  check(): Promise<ProbeResult> {
    if (this.last && this.clock() - this.last.at < PROBE_EVERY_MS) return Promise.resolve(this.last);
    this.running ??= this.probe().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async probe(): Promise<ProbeResult> {
    this.runs++;
    // Dated when it starts: an append that fails while it runs is newer evidence.
    const at = this.clock();
    const started = performance.now();
    const content = randomBytes(PROBE_BYTES / 2).toString('hex');
    let handle: FileHandle | undefined;
    let result: ProbeResult;
    try {
      handle = await open(this.file, 'w');
      await handle.writeFile(content);
      await handle.sync();
      await handle.close();
      handle = undefined;
      const back = await readFile(this.file, 'utf8');
      await unlink(this.file);
      result = back === content ? { ok: true, at, started } : { ok: false, at, started, problem: `a file written in the data directory ${path.dirname(this.dataFile)} read back different from what was written: the disk returns wrong data` };
    } catch (err) {
      await handle?.close().catch(() => undefined);
      await unlink(this.file).catch(() => undefined);
      result = { ok: false, at, started, problem: diskProblem(err, this.dataFile) };
    }
    this.last = result;
    return result;
  }
}

/** A failed write or read of the data directory, said for an operator: what is wrong and what to do; never a stack. */
export function diskProblem(err: unknown, dataFile: string): string {
  const dir = path.dirname(dataFile);
  const code = (err as { code?: unknown } | null)?.code;
  const cannot = `no change can be written to ${dataFile}`;
  switch (code) {
    case 'ENOSPC':
      return `the data directory ${dir} is full (ENOSPC): ${cannot} until space is freed there`;
    case 'EDQUOT':
      return `the disk quota of the data directory ${dir} is used up (EDQUOT): ${cannot} until space is freed or the quota raised`;
    case 'EROFS':
      return `the data directory ${dir} is read-only (EROFS): ${cannot} until it is mounted read-write`;
    case 'EACCES':
    case 'EPERM':
      return `the data directory ${dir} is not writable by this process (${code}): ${cannot} until its owner or permissions are fixed`;
    case 'ENOENT':
      return `the data directory ${dir} does not exist (ENOENT): ${cannot}`;
    case 'EIO':
      return `the disk of the data directory ${dir} reports input/output errors (EIO): ${cannot}; check the device`;
    default: {
      const message = (err as { message?: unknown } | null)?.message;
      const what = typeof code === 'string' ? code : typeof message === 'string' ? message : String(err);
      return `the data directory ${dir} cannot be written (${what}): ${cannot}`;
    }
  }
}
