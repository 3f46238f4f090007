/**
 * Issue 17: a database outage writes one line when it starts and one when it ends, not one per
 * failed request (it wrote ~330 in 10 s per instance). The database goes away behind a TCP proxy
 * in front of the run's PostgreSQL: cut (connections refused) and held (no answers). The lines
 * are the sandbox logger's (issue 18), read back from a real pino logger; the URL's password
 * never appears in them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import type { Sandbox } from '../../src/index.js';
import { freshDatabase } from '../support/databases.js';
import { createBody } from '../helpers.js';
import { call, createPayment, expectEnvelope } from '../support/http.js';
import { capturedLog, LEVEL, STACK_TRACE } from '../support/log.js';
import { tcpProxy } from '../support/tcp-proxy.js';
import type { TcpProxy } from '../support/tcp-proxy.js';
import { until } from '../support/until.js';

let sandbox: Sandbox | undefined;
let proxy: TcpProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await sandbox?.close();
  sandbox = undefined;
  proxy = undefined;
});

/** The run's cluster trusts local connections: a password in the URL is sent to nobody, and must be shown to nobody. */
const PASSWORD = 'pw-never-logged-7f3a';

/** A sandbox on a fresh database reached through a proxy, with a password in its URL; its log is captured. */
async function behindProxy() {
  const direct = new URL(await freshDatabase());
  proxy = await tcpProxy(direct.hostname, Number(direct.port));
  const url = new URL(direct);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  url.password = PASSWORD;
  const captured = capturedLog();
  sandbox = await createSandbox({ store: 'postgres', url: url.toString(), scheduler: false, log: captured.log });
  const shown = `postgres://${url.username}:***@127.0.0.1:${proxy.port}${url.pathname}`;
  return { sandbox, proxy, events: captured.events, shown, captured };
}

/** No line holds the password, a stack or a frame of one. */
function expectNothingSecret(text: string): void {
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toMatch(STACK_TRACE);
}

describe('a database outage in the log', () => {
  it('cut: one line when it starts, one when it ends, however many requests fail between', async () => {
    const { sandbox, proxy, events, shown, captured } = await behindProxy();
    const created = await createPayment(sandbox);
    await proxy.cut();
    for (let i = 0; i < 25; i++) {
      const answer = await call(sandbox, 'GET', `/openapi/v1/payments/payment/${created.payment_id}`);
      expectEnvelope(answer, 503);
      expect(answer.body.description).toMatch(/^The sandbox's database cannot be reached right now: /);
    }
    expect((await call(sandbox, 'GET', '/readyz', { key: null })).body.reason).toBe('store');
    expectEnvelope(await call(sandbox, 'GET', '/livez', { key: null }), 200);
    expect(events()).toEqual([
      { level: LEVEL.error, time: expect.any(Number), database: shown, reason: expect.stringMatching(/^\w+$/), msg: 'store: the database cannot be reached; answering 503 and trying again every second' },
    ]);

    await proxy.restore();
    await until(async () => ((await call(sandbox, 'GET', '/readyz', { key: null })).status === 200 ? true : undefined), '/readyz 200 after the outage', 10_000, 100);
    expectEnvelope(await call(sandbox, 'GET', `/openapi/v1/payments/payment/${created.payment_id}`), 200);
    expect(events()).toHaveLength(2);
    expect(events()[1]).toEqual({ level: LEVEL.warn, time: expect.any(Number), database: shown, down_s: expect.any(Number), msg: 'store: the database is reachable again' });
    // Every failed request wrote its request line, and nothing more.
    expect((await captured.requestLines()).length).toBeGreaterThanOrEqual(26);
    expectNothingSecret(captured.text());
  }, 30_000);

  it('held (no answers): one line when calls start to go unanswered, one when the database answers again', async () => {
    const { sandbox, proxy, events, shown, captured } = await behindProxy();
    const created = await createPayment(sandbox);
    proxy.hold();
    const answers = await Promise.all(Array.from({ length: 4 }, () => call(sandbox, 'GET', `/openapi/v1/payments/payment/${created.payment_id}`)));
    for (const answer of answers) {
      expectEnvelope(answer, 503);
      expect(answer.body.description).toMatch(/may or may not have been made: read the payment status before you retry/);
    }
    expect(events()).toEqual([
      { level: LEVEL.error, time: expect.any(Number), database: shown, deadline_s: 5, msg: 'store: the database does not answer in time; answering 503 for the calls it leaves unanswered' },
    ]);

    await proxy.restore();
    expectEnvelope(await call(sandbox, 'GET', `/openapi/v1/payments/payment/${created.payment_id}`), 200);
    expect(events()).toHaveLength(2);
    expect(events()[1]).toEqual({ level: LEVEL.warn, time: expect.any(Number), database: shown, silent_s: expect.any(Number), msg: 'store: the database answers again' });
    expectNothingSecret(captured.text());
  }, 30_000);

  it('a new connection the database drops as it is first used fails its calls with a described 503 and never ends the process', async () => {
    const { sandbox, proxy, captured } = await behindProxy();
    await createPayment(sandbox);
    const unhandled: unknown[] = [];
    const note = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', note);
    try {
      proxy.dropNewAtFirstStatement(true);
      // Then the database refuses connections: the driver's reconnects meet ECONNREFUSED.
      const refusing = new Promise((resolve) => setTimeout(resolve, 30)).then(() => proxy.cut());
      // Concurrent creates are separate statements, so the pool opens new connections for them.
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody({ merchant_ref_no: `dropped-${i}` }) })));
      await refusing;
      expect(answers.filter((a) => a.status === 503).length).toBeGreaterThan(0);
      for (const answer of answers) {
        if (answer.status !== 200) expectEnvelope(answer, 503);
      }
      proxy.dropNewAtFirstStatement(false);
      await proxy.restore();
      await until(async () => ((await call(sandbox, 'GET', '/readyz', { key: null })).status === 200 ? true : undefined), '/readyz 200 once connections hold', 10_000, 100);
      await createPayment(sandbox, { merchant_ref_no: 'after-the-drops' });
      // A rejection nobody handles would have ended a served process (Node's default); give a late one its turn.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', note);
    }
    expectNothingSecret(captured.text());
  }, 30_000);
});
