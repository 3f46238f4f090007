/** vitest globalSetup: one throw-away PostgreSQL cluster for the whole run; each test file makes its own databases in it. */
import type { TestProject } from 'vitest/node';
import { startPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the run's cluster (database `postgres`). */
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // fsync off: these databases die with the run; the durability tests start their own cluster with fsync on.
  const server = await startPostgres({ fast: true });
  project.provide('postgresUrl', server.url);
  return () => server.stop();
}
