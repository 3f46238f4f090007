import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresBinDir, startPostgres, type PostgresServer } from '../support/postgres.js';

const run = promisify(execFile);

// package.json has no PostgreSQL client yet, so the test talks to the server through psql.
async function query(url: string, sql: string): Promise<string> {
  const psql = [join(postgresBinDir(), 'psql'), '/usr/bin/psql'].find((p) => existsSync(p)) ?? 'psql';
  const { stdout } = await run(psql, ['-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', sql]);
  return stdout.trim();
}

describe('test PostgreSQL server', () => {
  let server: PostgresServer | undefined;
  afterAll(async () => server?.stop());

  it('answers, survives a SIGKILL and a restart, and stops', async () => {
    server = await startPostgres();
    expect(server.url).toBe(`postgres://sandbox@127.0.0.1:${server.port}/postgres`);
    expect(await query(server.url, 'SELECT 1')).toBe('1');
    expect(await query(server.url, 'SHOW fsync')).toBe('on');
    await query(server.url, 'CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (42)');

    server.kill();
    await expect(query(server.url, 'SELECT 1')).rejects.toThrow();
    await server.restart();
    expect(await query(server.url, 'SELECT id FROM t')).toBe('42');

    await server.restart();
    expect(await query(server.url, 'SELECT 1')).toBe('1');

    const { dataDir } = server;
    await server.stop();
    expect(existsSync(dataDir)).toBe(false);
    await expect(query(server.url, 'SELECT 1')).rejects.toThrow();
  }, 60_000);

  it('can run without fsync for speed', async () => {
    const fast = await startPostgres({ fast: true });
    try {
      expect(await query(fast.url, 'SHOW fsync')).toBe('off');
      expect(await query(fast.url, 'SHOW max_connections')).toBe('200');
    } finally {
      await fast.stop();
    }
  }, 60_000);
});
