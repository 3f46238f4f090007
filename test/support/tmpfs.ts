/**
 * A small real filesystem to fill up or make read-only: a tmpfs mounted on a temporary
 * directory. Mounting needs root; the tests that use it are skipped otherwise (CI runs as root).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const IS_ROOT = process.getuid?.() === 0;
export const NOT_ROOT_REASON = 'mounting a tmpfs needs root (CI runs as root)';

/** A fresh directory with a tmpfs of `size` (e.g. '2m') mounted on it. */
export function mountTmpfs(size = '2m'): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'payreq-tmpfs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  return dir;
}

/** Writes a filler file in `dir` until the disk is full (ENOSPC); answers its path. */
export function fill(dir: string): string {
  const file = path.join(dir, 'filler');
  const fd = openSync(file, 'w');
  try {
    for (const size of [65_536, 4_096, 1]) {
      const chunk = Buffer.alloc(size, 0x2e);
      for (;;) {
        try {
          if (writeSync(fd, chunk) < size) break;
        } catch (err) {
          if ((err as { code?: string }).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return file;
}

function isMounted(dir: string): boolean {
  try {
    execFileSync('mountpoint', ['-q', dir]);
    return true;
  } catch {
    return false;
  }
}

/**
 * Makes `dir` read-only where a path is opened: a read-only bind mount of it stacked on it.
 * `mount -o remount,ro` itself is refused (EBUSY) while a process holds a file of it open for
 * writing, as the file store holds its log: the kernel never turns a mount read-only under a
 * writer. New files (the health probe, a new log segment, a snapshot) meet EROFS.
 */
export function makeReadOnly(dir: string): void {
  execFileSync('mount', ['--bind', dir, dir]);
  execFileSync('mount', ['-o', 'remount,bind,ro', dir]);
}

/** Undoes makeReadOnly: the bind mount made read-write again, then taken off. */
export function makeWritable(dir: string): void {
  execFileSync('mount', ['-o', 'remount,bind,rw', dir]);
  execFileSync('umount', [dir]);
}

/** Takes every mount off `dir` (lazily if something still holds it) and removes it; never throws. */
export function unmountAll(dir: string): void {
  for (let i = 0; i < 5 && isMounted(dir); i++) {
    try {
      execFileSync('umount', [dir], { stdio: 'ignore' });
    } catch {
      try {
        execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
      } catch {
        // Tried; the next round (or the machine's reboot) takes it.
      }
    }
  }
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // Still mounted: left for the operator, never a failed test run.
  }
}
