/** An in-process sandbox on each store (memory, file, PostgreSQL), for tests that must hold on all three. */
import path from 'node:path';
import { createSandbox } from '../../src/index.js';
import type { Sandbox, SandboxOptions } from '../../src/index.js';
import { freshDatabase } from './databases.js';
import { tempDir } from './files.js';

export const EACH_STORE: readonly [string, (options?: SandboxOptions) => Promise<Sandbox>][] = [
  ['memory', (options = {}) => createSandbox({ store: 'memory', scheduler: false, ...options })],
  ['file', (options = {}) => createSandbox({ store: 'file', dataFile: path.join(tempDir('payreq-stores-'), 'sandbox.json'), scheduler: false, ...options })],
  ['postgres', async (options = {}) => createSandbox({ store: 'postgres', url: await freshDatabase(), scheduler: false, ...options })],
];
