/** An in-process sandbox on each store (memory, file, PostgreSQL), for tests that must hold on all three. */
import path from 'node:path';
import { afterEach } from 'vitest';
import { createSandbox } from '../../src/index.js';
import type { Sandbox, SandboxOptions } from '../../src/index.js';
import { freshDatabase } from './databases.js';
import { tempDir } from './files.js';

const STORES: readonly [string, (options?: SandboxOptions) => Promise<Sandbox>][] = [
  ['memory', (options = {}) => createSandbox({ store: 'memory', scheduler: false, ...options })],
  ['file', (options = {}) => createSandbox({ store: 'file', dataFile: path.join(tempDir('payreq-stores-'), 'sandbox.json'), scheduler: false, ...options })],
  ['postgres', async (options = {}) => createSandbox({ store: 'postgres', url: await freshDatabase(), scheduler: false, ...options })],
];

/**
 * All three in the `file` project; in the `postgres` project (SANDBOX_TEST_STORE=postgres), which
 * runs these files again, PostgreSQL alone: the `file` project has proved them on all three.
 */
export const EACH_STORE: readonly [string, (options?: SandboxOptions) => Promise<Sandbox>][] =
  process.env.SANDBOX_TEST_STORE === 'postgres' ? STORES.filter(([name]) => name === 'postgres') : STORES;

/** In-process memory sandboxes of a given seed, closed after each test of the file that calls this. */
export function seededSandboxesPerTest(): (seed: number) => Promise<Sandbox> {
  const opened: Sandbox[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });
  return async (seed) => {
    const sandbox = await createSandbox({ store: 'memory', seed, scheduler: false });
    opened.push(sandbox);
    return sandbox;
  };
}
