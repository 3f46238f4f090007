/**
 * Issue 17: a database outage writes one line when it starts and one when it ends, not one per
 * failed request (it wrote ~330 in 10 s per instance). The database goes away behind a TCP proxy
 * in front of the run's PostgreSQL: cut (connections refused) and held (no answers).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSandbox } from '../../src/index.js';
import type { Sandbox } from '../../src/index.js';
import { freshDatabase } from '../support/databases.js';
import { call, createPayment, expectEnvelope } from '../support/http.js';
import { capturedLog } from '../support/log.js';
import { tcpProxy } from '../support/tcp-proxy.js';
import type { TcpProxy } from '../support/tcp-proxy.js';
import { until } from '../support/until.js';

let sandbox: Sandbox | undefined;
let proxy: TcpProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await sandbox?.close();
  vi.restoreAllMocks();
  sandbox = undefined;
  proxy = undefined;
});

/** A sandbox on a fresh database reached through a proxy; console.error is captured. */
async function behindProxy() {
  const direct = new URL(await freshDatabase());
  proxy = await tcpProxy(direct.hostname, Number(direct.port));
  const url = new URL(direct);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  const { log, lines } = capturedLog();
  sandbox = await createSandbox({ store: 'postgres', url: url.toString(), scheduler: false, log });
  const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
  const errorLines = () => errors.mock.calls.map((args) => args.map(String).join(' '));
  return { sandbox, proxy, errorLines, logLines: lines };
}

describe('a database outage in the log', () => {
  it('cut: one line when it starts, one when it ends, however many requests fail between', async () => {
    const { sandbox, proxy, errorLines, logLines } = await behindProxy();
    const created = await createPayment(sandbox);
    await proxy.cut();
    for (let i = 0; i < 25; i++) {
      const answer = await call(sandbox, 'GET', `/openapi/v1/payments/payment/${created.payment_id}`);
      expectEnvelope(answer, 503);
      expect(answer.body.description).toMatch(/^The sandbox's database cannot be reached right now: /);
    }
    expect((await call(sandbox, 'GET', '/readyz', { key: null })).body.reason).toBe('store');
    expectEnvelope(await call(sandbox, 'GET', '/livez', { key: null }), 200);
    expect(errorLines()).toHaveLength(1);
    expect(errorLines()[0]).toMatch(/^store: the database postgres:\/\/.* cannot be reached \(\w+\); answering 503 and trying again every second$/);

    await proxy.restore();
    await until(async () => ((await call(sandbox, 'GET', '/readyz', { key: null })).status === 200 ? true : undefined), '/readyz 200 after the outage', 10_000, 100);
    expectEnvelope(await call(sandbox, 'GET', `/openapi/v1/payments/payment/${created.payment_id}`), 200);
    expect(errorLines()).toHaveLength(2);
    expect(errorLines()[1]).toMatch(/^store: the database postgres:\/\/.* is reachable again after \d+ s$/);
    // The request log keeps one line per request, and nothing else.
    expect(logLines.every((l) => l.msg === 'request')).toBe(true);
  }, 30_000);

  it('held (no answers): one line when calls start to go unanswered, one when the database answers again', async () => {
    const { sandbox, proxy, errorLines } = await behindProxy();
    const created = await createPayment(sandbox);
    proxy.hold();
    const answers = await Promise.all(Array.from({ length: 4 }, () => call(sandbox, 'GET', `/openapi/v1/payments/payment/${created.payment_id}`)));
    for (const answer of answers) {
      expectEnvelope(answer, 503);
      expect(answer.body.description).toMatch(/may or may not have been made: read the payment status before you retry/);
    }
    expect(errorLines()).toHaveLength(1);
    expect(errorLines()[0]).toMatch(/^store: the database postgres:\/\/.* does not answer within 5 s; answering 503 for the calls it leaves unanswered$/);

    await proxy.restore();
    expectEnvelope(await call(sandbox, 'GET', `/openapi/v1/payments/payment/${created.payment_id}`), 200);
    expect(errorLines()).toHaveLength(2);
    expect(errorLines()[1]).toMatch(/^store: the database postgres:\/\/.* answers again after \d+ s without answers$/);
  }, 30_000);
});
