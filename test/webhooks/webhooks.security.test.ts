import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { isPrivateAddress } from '../../src/services/webhooks.js';
import { createBody, DEMO_PAYEE, jsonRequest, memorySandbox } from '../helpers.js';

describe('isPrivateAddress', () => {
  it.each([
    ['127.0.0.1', 4],
    ['10.1.2.3', 4],
    ['172.20.0.1', 4],
    ['192.168.1.1', 4],
    ['169.254.169.254', 4],
    ['100.64.0.1', 4],
    ['0.0.0.0', 4],
    ['::1', 6],
    ['fd00::1', 6],
    ['fe80::1', 6],
    ['::ffff:127.0.0.1', 6],
  ])('%s is private', (address, family) => {
    expect(isPrivateAddress(address, family)).toBe(true);
  });
  it.each([
    ['8.8.8.8', 4],
    ['93.184.216.34', 4],
    ['2001:4860:4860::8888', 6],
  ])('%s is public', (address, family) => {
    expect(isPrivateAddress(address, family)).toBe(false);
  });
});

describe('SANDBOX_WEBHOOK_PRIVATE=deny (a hosted sandbox)', () => {
  let sandbox: Sandbox;
  let hits = 0;
  const receiver = createServer((_req, res) => {
    hits++;
    res.end('ok');
  });
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    port = (receiver.address() as AddressInfo).port;
    sandbox = await memorySandbox({ config: { webhookPrivateTargets: false, webhookRetryDelaysMs: [0] } });
  });
  afterAll(async () => {
    await sandbox.close();
    await new Promise((r) => receiver.close(r));
  });

  for (const host of ['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]']) {
    it(`refuses to deliver to ${host} and says why`, async () => {
      await sandbox.fetch(jsonRequest('PUT', '/sandbox/v1/webhook', { url: `http://${host}:${port}/hooks` }));
      const created = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody()));
      const id = ((await created.json()) as { payment_id: string }).payment_id;
      let delivery;
      for (let i = 0; i < 200 && !delivery; i++) {
        await new Promise((r) => setTimeout(r, 10));
        delivery = (await sandbox.services.webhooks.deliveries(DEMO_PAYEE, 20)).find((d) => d.paymentId === id && d.state !== 'pending');
      }
      expect(delivery?.state).toBe('failed');
      expect(delivery?.attempts[0]?.error).toMatch(/private address/);
      expect(hits).toBe(0);
    });
  }
});
