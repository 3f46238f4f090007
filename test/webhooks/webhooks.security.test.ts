/**
 * SSRF guard (SPEC 18): with SANDBOX_WEBHOOK_PRIVATE=deny no delivery reaches a loopback,
 * private or link-local address, however it is written, and the address checked is the one
 * connected to. Only loopback addresses are ever connected to here.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../src/domain/private-addresses.js';
import type { Sandbox } from '../../src/index.js';
import { postWebhook } from '../../src/services/webhook-post.js';
import type { Resolver } from '../../src/services/webhook-post.js';
import { createBody, DEMO_PAYEE, jsonRequest, memorySandbox } from '../helpers.js';
import { receiver } from '../support/webhook-receiver.js';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '198.18.0.1',
    '::', '::1', 'fd00::1', 'fe80::1', 'fe80::1%eth0', 'ff02::1',
    // IPv4-mapped
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::FFFF:10.0.0.1', '0:0:0:0:0:ffff:a9fe:a9fe',
    // IPv4-compatible
    '::127.0.0.1', '::7f00:1', '::10.0.0.1', '::a9fe:a9fe',
    // NAT64, the well-known prefix and the local-use one (/96 and /48 embeddings)
    '64:ff9b::127.0.0.1', '64:ff9b::7f00:1', '64:ff9b::a00:1', '64:ff9b:1::7f00:1', '64:ff9b:1::10.0.0.1', '64:ff9b:1:7f00:0:100::',
    // 6to4
    '2002:7f00:1::1',
    // not an address at all
    'localhost', '',
  ])('%s is refused', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });
  it.each(['8.8.8.8', '93.184.216.34', '2001:4860:4860::8888'])(
    '%s is public',
    (address) => {
      expect(isPrivateAddress(address)).toBe(false);
    },
  );
});

describe('postWebhook with an injected resolver (the name is resolved once, the checked address is connected to)', () => {
  let hook: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    hook = await receiver('127.0.0.1');
  });
  afterAll(() => hook.close());
  const post = (host: string) => ({ url: hook.url.replace('127.0.0.1', host), headers: { 'Content-Type': 'application/json' }, body: '{"a":1}', timeoutMs: 5000 });

  it('a name that answers the check one address and a second lookup another is connected to the checked one, resolved once', async () => {
    // A rebinding name: 127.0.0.1 first, 127.0.0.2 after. The check here takes 127.0.0.1 for public, so a
    // second resolution (as fetch after dns.lookup made) would connect to 127.0.0.2, where nothing listens.
    const answers = ['127.0.0.1', '127.0.0.2'];
    const asked: string[] = [];
    const resolve: Resolver = async (host) => {
      asked.push(host);
      return [{ address: answers.shift() ?? '127.0.0.2', family: 4 }];
    };
    const checked: string[] = [];
    const refuses = (address: string) => {
      checked.push(address);
      return address !== '127.0.0.1';
    };
    const before = hook.received.length;
    expect(await postWebhook(post('hooks.rebind.test'), { resolve, refuses })).toBe(200);
    expect(asked).toEqual(['hooks.rebind.test']);
    expect(checked).toEqual(['127.0.0.1']);
    expect(hook.received.slice(before).map((r) => r.localAddress)).toEqual(['127.0.0.1']);
  });

  it('a name with any private address among its answers is refused before any connection, resolved once', async () => {
    let calls = 0;
    const resolve: Resolver = async () => {
      calls++;
      return [{ address: '127.0.0.1', family: 4 }, { address: '::ffff:7f00:1', family: 6 }];
    };
    const before = hook.received.length;
    await expect(postWebhook(post('hooks.private.test'), { resolve, refuses: (a) => a !== '127.0.0.1' })).rejects.toThrow(
      /refused: hooks\.private\.test is ::ffff:7f00:1, a private address/,
    );
    expect(calls).toBe(1);
    expect(hook.received.length).toBe(before);
  });

  it('over https the TLS server name is the host, while the connection goes to the checked address', async () => {
    const names: string[] = [];
    // No certificate: the handshake stops once the client has said which name it wants.
    const tls = createTlsServer({ SNICallback: (name, done) => (names.push(name), done(new Error('no certificate here'))) });
    tls.on('tlsClientError', () => {});
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = tls.address() as AddressInfo;
      const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
      const sent = { url: `https://hooks.tls.test:${port}/hooks`, headers: {}, body: '{}', timeoutMs: 5000 };
      await expect(postWebhook(sent, { resolve, refuses: (a) => a !== '127.0.0.1' })).rejects.toThrow();
      expect(names).toEqual(['hooks.tls.test']);
    } finally {
      await new Promise((r) => tls.close(r));
    }
  });

  it('an IP literal is checked without a lookup', async () => {
    let calls = 0;
    const resolve: Resolver = async () => {
      calls++;
      return [];
    };
    await expect(postWebhook(post('127.0.0.1'), { resolve, refuses: isPrivateAddress })).rejects.toThrow(/refused: 127\.0\.0\.1 is 127\.0\.0\.1/);
    expect(calls).toBe(0);
  });
});

describe('SANDBOX_WEBHOOK_PRIVATE=deny (a hosted sandbox)', () => {
  let sandbox: Sandbox;
  let hits = 0;
  const target = createServer((_req, res) => {
    hits++;
    res.end('ok');
  });
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    port = (target.address() as AddressInfo).port;
    sandbox = await memorySandbox({ config: { webhookPrivateTargets: false, webhookRetryDelaysMs: [0] } });
  });
  afterAll(async () => {
    await sandbox.close();
    await new Promise((r) => target.close(r));
  });

  // An address written out is refused when it is set (a 400, nothing changed); a name at delivery.
  const written = ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::127.0.0.1]', '[::7f00:1]', '[64:ff9b::7f00:1]', '[64:ff9b:1::7f00:1]', '2130706433', '0x7f.1'];
  for (const host of written) {
    it(`refuses ${host} when it is set, and says why`, async () => {
      const answer = await sandbox.fetch(jsonRequest('PUT', '/sandbox/v1/webhook', { url: `http://${host}:${port}/hooks` }));
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { description: string }).description).toMatch(/this sandbox delivers webhooks to public addresses only \(SANDBOX_WEBHOOK_PRIVATE=deny\)/);
      expect(hits).toBe(0);
    });
  }
  for (const host of ['localhost']) {
    it(`refuses to deliver to ${host} and says why`, async () => {
      expect((await sandbox.fetch(jsonRequest('PUT', '/sandbox/v1/webhook', { url: `http://${host}:${port}/hooks` }))).status).toBe(200);
      const created = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody()));
      const id = ((await created.json()) as { payment_id: string }).payment_id;
      let delivery;
      for (let i = 0; i < 200 && !delivery; i++) {
        await new Promise((r) => setTimeout(r, 10));
        delivery = (await sandbox.services.webhooks.deliveries(DEMO_PAYEE, 20)).find((d) => d.paymentId === id && d.state !== 'pending');
      }
      expect(delivery?.state).toBe('failed');
      expect(delivery?.attempts[0]?.error).toMatch(/private address; this sandbox delivers webhooks to public addresses only \(SANDBOX_WEBHOOK_PRIVATE=deny\)/);
      expect(hits).toBe(0);
    });
  }
});
