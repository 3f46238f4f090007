/** An in-process sandbox on each store (memory, file, PostgreSQL), for tests that must hold on all three. */
import path from 'node:path';
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
 * All three in one run of vitest; in npm test's second pass (SANDBOX_TEST_STORE=postgres), which
 * runs these files again, PostgreSQL alone: its first pass has proved them on all three.
 */
export const EACH_STORE: readonly [string, (options?: SandboxOptions) => Promise<Sandbox>][] =
  process.env.SANDBOX_TEST_STORE === 'postgres' ? STORES.filter(([name]) => name === 'postgres') : STORES;
