/**
 * examples/{python,php}/verify_webhook accept the deliveries a real listening sandbox sends (the
 * receiver hands each to the script and answers what it decides), and refuse a delivery with one
 * byte of its body changed, an old timestamp, another secret or a malformed header.
 */
import { createHmac } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../support/files.js';
import { killQuietly, startServer } from '../support/processes.js';
import type { ServerProcess } from '../support/processes.js';
import { until } from '../support/until.js';
import { LANGUAGES, runExample, send, verifyingReceiver } from './support.js';
import type { Judged } from './support.js';

let server: ServerProcess | undefined;
beforeAll(async () => {
  server = await startServer(path.join(tempDir('payreq-examples-'), 'sandbox.json'));
});
afterAll(() => {
  killQuietly(server);
  removeTempDirs();
});

const sign = (secret: string, t: number, body: Buffer) => `t=${t},v1=${createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex')}`;

describe.each(LANGUAGES)('$name verify_webhook', (language) => {
  let key: string;
  let payee: string;
  let secret = '';
  let hook: Awaited<ReturnType<typeof verifyingReceiver>>;
  let delivered: Judged;
  const verify = (header: string, body: Buffer, withSecret = secret) => runExample(language.verifyWebhook, [header], { WEBHOOK_SECRET: withSecret }, body);

  beforeAll(async () => {
    const enrolled = await send(server!.url, 'POST', '/sandbox/v1/merchants', undefined, { name: `${language.name} hooks` });
    key = enrolled.body.api_key;
    payee = enrolled.body.payee_id;
    hook = await verifyingReceiver(language, () => secret);
    const set = await send(server!.url, 'PUT', '/sandbox/v1/webhook', key, { url: hook.url });
    expect(set.status).toBe(200);
    secret = set.body.secret;
  });
  afterAll(() => hook.close());

  it('verifies the deliveries a real sandbox sends: the receiver answers 204 and the delivery log says delivered', async () => {
    const created = await send(server!.url, 'POST', '/openapi/v1/payments/payment', key, {
      payee,
      product_type: 'QR_DYNAMIC',
      merchant_ref_no: `hook-${language.name}`,
      amount: 9.0,
      payer: 'PAYER_PAYS',
      metadata: { note: 'café ☕' },
    });
    expect(created.status).toBe(200);
    const deliveries = await until(async () => {
      const log = await send(server!.url, 'GET', '/sandbox/v1/webhook/deliveries?limit=10', key);
      const list = log.body.deliveries as { state: string; event_type: string }[];
      return list.length === 2 && list.every((d) => d.state === 'delivered') ? list : undefined;
    }, 'payment.created and payment.paid delivered', 15_000, 100);
    expect(deliveries.map((d) => d.event_type).sort()).toEqual(['payment.created', 'payment.paid']);
    expect(hook.judged.map((j) => j.run.code)).toEqual([0, 0]);
    expect(hook.judged.map((j) => j.run.stdout).join('')).toMatch(/verified: evt_\S+ payment\.paid/);
    delivered = hook.judged[0]!;
  });

  it('refuses the same delivery with one byte of its body changed', async () => {
    const tampered = Buffer.from(delivered.raw);
    const at = tampered.indexOf('"payment.');
    tampered[at + 1] = 'P'.charCodeAt(0);
    const run = await verify(delivered.header, tampered);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('refused: signature does not match the body');
    expect((await verify(delivered.header, delivered.raw)).code).toBe(0);
  });

  it('refuses a delivery signed with the right secret 10 minutes ago (a copy sent again later)', async () => {
    const old = Math.floor(Date.now() / 1000) - 600;
    const run = await verify(sign(secret, old, delivered.raw), delivered.raw);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('refused: timestamp more than 5 minutes from now');
  });

  it('refuses another secret, a malformed header, and no header', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const header of [sign('whsec_not-the-secret', now, delivered.raw), `t=${now}`, 'v1=00,t=abc', '']) {
      const run = await verify(header, delivered.raw);
      expect(run.code, header).toBe(1);
      expect(run.stdout).toMatch(/^refused: /);
    }
  });

  it('after a rotation the receiver still holding the old secret refuses the sandbox: the delivery is not delivered', async () => {
    const rotated = await send(server!.url, 'POST', '/sandbox/v1/webhook/secret', key);
    expect(rotated.status).toBe(200);
    const test = await send(server!.url, 'POST', '/sandbox/v1/webhook/test', key, { type: 'payment.paid' });
    expect(test.body.delivery.attempts[0].status).toBe(401);
    expect(hook.judged.at(-1)!.run.stdout).toContain('refused: signature does not match the body');
    secret = rotated.body.secret;
    const again = await send(server!.url, 'POST', '/sandbox/v1/webhook/test', key, { type: 'payment.paid' });
    expect(again.body.delivery.attempts[0].status).toBe(204);
  });
});
