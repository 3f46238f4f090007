/** A fresh, empty database in the run's PostgreSQL cluster (test/support/global-postgres.ts), for one test or file. */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { inject } from 'vitest';

export async function freshDatabase(adminUrl: string = inject('postgresUrl')): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
