/**
 * Issue 17: behind a proxy that does not pass a client's giving up on to the server (HAProxy
 * without `option abortonclose`), a timeout-held request stays held for up to 120 s. The shipped
 * timeout scenarios read the journal right after giving up: they pass only because a held answer
 * is journaled once its change is committed (SPEC 19), not when the hold ends.
 */
import { createServer, connect } from 'node:net';
import type { Server, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer, Sandbox } from '../../src/index.js';
import { replay } from '../../src/scenarios/index.js';
import { memorySandbox } from '../helpers.js';

const scenario = (name: string) => fileURLToPath(new URL(`../../scenarios/${name}`, import.meta.url));

/** A TCP proxy that keeps the server's side of a connection open when the client closes its own. */
async function proxyWithoutAbortOnClose(port: number): Promise<{ url: string; upstreams: Set<Socket>; close(): Promise<void> }> {
  const upstreams = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    upstreams.add(upstream);
    // end: false: the client's FIN or close never reaches the server, as with HAProxy's default.
    client.pipe(upstream, { end: false });
    upstream.pipe(client);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined).on('close', () => {
      upstreams.delete(upstream);
      client.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    upstreams,
    close: () =>
      new Promise<void>((resolve) => {
        for (const upstream of upstreams) upstream.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('timeout scenarios through a proxy without abortonclose', () => {
  let sandbox: Sandbox;
  let listening: RunningServer;
  let proxy: Awaited<ReturnType<typeof proxyWithoutAbortOnClose>>;
  beforeAll(async () => {
    sandbox = await memorySandbox({ config: { timeoutHoldMs: 60_000 } });
    listening = await sandbox.listen(0, '127.0.0.1');
    proxy = await proxyWithoutAbortOnClose(Number(new URL(listening.url).port));
  });
  afterAll(async () => {
    await proxy?.close();
    await sandbox?.close();
  });

  it('pass while the server still holds the answers the clients gave up on', async () => {
    const files = ['timeout-fault-header-recovery.yaml', 'fault-rule-timeout-recovery.yaml', 'timeout-after-commit-recovery.yaml'].map(scenario);
    const report = await replay(files, { baseUrl: proxy.url, concurrency: 1 });
    const failures = report.files.flatMap((f) => [
      ...(f.error ? [`${f.file}: ${f.error}`] : []),
      ...f.steps.filter((s) => s.status === 'failed').map((s) => `${f.file}: ${s.name}: ${s.error ?? ''} ${JSON.stringify(s.failures)}`),
    ]);
    expect(failures).toEqual([]);
    expect(report.passed).toBe(3);
    // The proof that the proxy kept them held: the server still holds answers of those merchants.
    const held = report.files.reduce((sum, f) => sum + sandbox.services.held.count(f.payeeId!), 0);
    expect(held).toBeGreaterThan(0);
  });
});
