/** Throw-away PostgreSQL clusters for tests: the same starter the bench and `payreq-sandbox dev-postgres` use. */
export { postgresBinDir, startPostgres } from '../../src/dev/local-postgres.js';
export type { PostgresServer } from '../../src/dev/local-postgres.js';
