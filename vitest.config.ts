import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-postgres.ts'],
    pool: 'forks',
    // Most files wait on real servers, sockets and PostgreSQL more than they compute: one worker more than cores (2 cores: 3) took CI (npm ci included) from 401 s to 326-336 s.
    maxWorkers: Math.max(3, availableParallelism() + 1),
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
