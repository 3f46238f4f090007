import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-postgres.ts'],
    pool: 'forks',
    // Vitest's default is one worker per core but one; most test files wait on real servers, sockets
    // and PostgreSQL more than they compute, so on 2 cores two workers took the suite from 434 + 223 s
    // to 241 + 146 s (first pass + PostgreSQL pass), every test passing.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
