/**
 * A disk that fills up on cue, for tests of failed store writes: in a test file,
 * `vi.mock('node:fs', async (real) => (await import('../support/failing-writes.js')).fsFailingOnCue(real))`,
 * then `failNext.armed = true` makes the next write write 20 bytes of it and fail with ENOSPC;
 * `failNext.fsync = true` makes the next fsyncSync fail with EIO, `failNext.rename = true` the next renameSync.
 */
import type * as fs from 'node:fs';

export const failNext = { armed: false, fsync: false, rename: false };

export async function fsFailingOnCue(importOriginal: () => Promise<unknown>): Promise<typeof fs> {
  const real = (await importOriginal()) as typeof fs;
  return {
    ...real,
    writeSync: ((fd: number, buffer: Uint8Array, ...rest: unknown[]) => {
      if (failNext.armed) {
        failNext.armed = false;
        real.writeSync(fd, buffer, 0, 20);
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      }
      return (real.writeSync as (...args: unknown[]) => number)(fd, buffer, ...rest);
    }) as typeof fs.writeSync,
    fsyncSync: ((fd: number) => {
      if (!failNext.fsync) return real.fsyncSync(fd);
      failNext.fsync = false;
      throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    }) as typeof fs.fsyncSync,
    renameSync: ((from: string, to: string) => {
      if (!failNext.rename) return real.renameSync(from, to);
      failNext.rename = false;
      throw Object.assign(new Error('EIO: i/o error, rename'), { code: 'EIO' });
    }) as typeof fs.renameSync,
  };
}
