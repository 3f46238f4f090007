import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** What runs a second time on PostgreSQL: everything that reaches the store through the HTTP API, the library or a scenario. */
const ON_POSTGRES = ['test/http', 'test/webhooks', 'test/fidelity', 'test/scenarios', 'test/library'].map((dir) => `${dir}/**/*.test.ts`).concat('test/store/due-index.happy.test.ts');

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-postgres.ts'],
    pool: 'forks',
    // Most files wait on real servers, sockets and PostgreSQL more than they compute: one worker more than cores (2 cores: 3) took CI (npm ci included) from 401 s to 326-336 s.
    maxWorkers: Math.max(3, availableParallelism() + 1),
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // One run for both passes, so the PostgreSQL files fill the workers the first pass's slowest files leave idle.
    projects: [
      { extends: true, test: { name: 'file', include: ['test/**/*.test.ts'] } },
      { extends: true, test: { name: 'postgres', include: ON_POSTGRES, env: { SANDBOX_TEST_STORE: 'postgres' } } },
    ],
  },
});
