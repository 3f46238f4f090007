/**
 * SPEC 26: with SANDBOX_WEBHOOK_PRIVATE=deny, every range of IANA's IPv4 and IPv6 special-purpose
 * registries and the instance's own addresses are refused as webhook targets. A URL with the
 * address written out is refused when it is set (400 naming why, nothing changed, nothing sent);
 * a name resolving there is refused at delivery, before any connection. No packet is sent to any
 * of these addresses: the API refuses first, and the resolver here is a stand-in.
 */
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress, isRefusedTarget } from '../../src/domain/private-addresses.js';
import type { Sandbox } from '../../src/index.js';
import { postWebhook } from '../../src/services/webhook-post.js';
import { DEMO_PAYEE, jsonRequest, memorySandbox } from '../helpers.js';

/** The first and the last address of each special-purpose range (the last of a /128 is itself). */
const SPECIAL = [
  ['0.0.0.0', '0.255.255.255'], ['10.0.0.0', '10.255.255.255'], ['100.64.0.0', '100.127.255.255'], ['127.0.0.0', '127.255.255.255'],
  ['169.254.0.0', '169.254.255.255'], ['172.16.0.0', '172.31.255.255'], ['192.0.0.0', '192.0.0.255'], ['192.0.2.0', '192.0.2.255'],
  ['192.31.196.1', '192.52.193.1'], ['192.88.99.0', '192.88.99.255'], ['192.168.0.0', '192.168.255.255'], ['192.175.48.1', '198.18.0.0'],
  ['198.19.255.255', '198.51.100.0'], ['198.51.100.255', '203.0.113.0'], ['203.0.113.255', '224.0.0.1'], ['239.255.255.255', '240.0.0.1'],
  ['255.255.255.255', '::'], ['::1', '::ffff:0:0'], ['::ffff:ffff:ffff', '64:ff9b::'], ['64:ff9b::ffff:ffff', '64:ff9b:1::'],
  ['64:ff9b:1:ffff:ffff:ffff:ffff:ffff', '100::'], ['100::ffff:ffff:ffff:ffff', '2001::'], ['2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db8::'],
  ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', '2002::'], ['2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '2620:4f:8000::1'], ['3fff::1', '5f00::1'],
  ['fc00::', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'], ['fe80::', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff'], ['ff00::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
].flat();

describe('the special-purpose registries', () => {
  it.each(SPECIAL)('%s is refused', (address) => expect(isPrivateAddress(address)).toBe(true));
  it.each(['1.1.1.1', '8.8.8.8', '93.184.216.34', '100.128.0.1', '172.32.0.1', '198.20.0.1', '223.255.255.255', '2606:4700:4700::1111', '2a00:1450:4001::1', '2001:200::1'])(
    '%s is public',
    (address) => expect(isPrivateAddress(address)).toBe(false),
  );

  it("the instance's own addresses are refused too, in IPv6 forms that carry them", () => {
    const own = ['93.184.216.34', '2a00:1450:4001::5', 'fe80::1%eth0'];
    for (const address of ['93.184.216.34', '::ffff:93.184.216.34', '2a00:1450:4001::5']) expect(isRefusedTarget(address, own), address).toBe(true);
    expect(isRefusedTarget('93.184.216.35', own)).toBe(false);
    expect(isRefusedTarget('2a00:1450:4001::6', own)).toBe(false);
  });
});

const ownAddress = Object.values(networkInterfaces())
  .flatMap((list) => list ?? [])
  .find((i) => !i.internal)?.address;

describe('SANDBOX_WEBHOOK_PRIVATE=deny: PUT /sandbox/v1/webhook', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox({ config: { webhookPrivateTargets: false } });
  });
  afterAll(() => sandbox.close());

  const put = async (url: string | null) => {
    const answer = await sandbox.fetch(jsonRequest('PUT', '/sandbox/v1/webhook', { url }));
    return { status: answer.status, body: (await answer.json()) as { code: number; description: string; errors?: { field: string; message: string }[] } };
  };

  const written = [
    ['http://192.0.2.1/hooks', '192.0.2.1'], ['https://198.51.100.7:8443/x', '198.51.100.7'], ['http://203.0.113.1', '203.0.113.1'], ['http://100.64.0.1/', '100.64.0.1'],
    ['http://198.18.0.1/', '198.18.0.1'], ['http://255.255.255.255/', '255.255.255.255'], ['http://[2001:db8::1]/hooks', '2001:db8::1'], ['http://[64:ff9b::c000:201]/', '64:ff9b::c000:201'],
    ['http://[::ffff:192.0.2.1]/', '::ffff:c000:201'], ['http://[fe80::1]/', 'fe80::1'], ['http://[2002:c000:201::1]/', '2002:c000:201::1'], ['http://0x7f.1/', '127.0.0.1'],
    ...(ownAddress ? [[`http://${ownAddress.includes(':') ? `[${ownAddress}]` : ownAddress}:8080/hooks`, ownAddress]] : []),
  ];
  it.each(written)('%s is refused with a 400 naming the address; the URL set before stays, nothing is sent', async (url, address) => {
    const before = await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/webhook'));
    const refused = await put(url!);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe(400);
    expect(refused.body.description).toContain(`points at ${address}, a loopback, private, special-purpose`);
    expect(refused.body.description).toContain('this sandbox delivers webhooks to public addresses only (SANDBOX_WEBHOOK_PRIVATE=deny)');
    expect(refused.body.errors).toEqual([{ field: 'url', message: `${address} is not a public address` }]);
    const after = await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/webhook'));
    expect(await after.json()).toEqual(await before.json());
    expect(await sandbox.services.webhooks.deliveries(DEMO_PAYEE, 20)).toEqual([]);
  });

  it('a name is taken when set (it is checked when resolved, at delivery); null still turns webhooks off', async () => {
    expect((await put('https://hooks.example.test/payreq')).status).toBe(200);
    expect((await put(null)).status).toBe(200);
  });
});

describe('SANDBOX_WEBHOOK_PRIVATE=allow (the default) takes written-out addresses', () => {
  it('a documentation address is set (nothing is sent: no payment changes)', async () => {
    const sandbox = await memorySandbox();
    try {
      const answer = await sandbox.fetch(jsonRequest('PUT', '/sandbox/v1/webhook', { url: 'http://192.0.2.1/hooks' }));
      expect(answer.status).toBe(200);
      expect((await sandbox.fetch(jsonRequest('PUT', '/sandbox/v1/webhook', { url: null }))).status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });
});

describe('a name resolving to a special-purpose address', () => {
  it.each(['192.0.2.10', '198.51.100.10', '203.0.113.10', '2001:db8::10', '100.64.1.1'])('resolving to %s is refused at delivery, before any connection', async (address) => {
    let connected = false;
    const resolve = async () => [{ address, family: address.includes(':') ? 6 : 4 }];
    const refuses = (a: string) => {
      const refused = isRefusedTarget(a, []);
      if (!refused) connected = true;
      return refused;
    };
    const post = { url: 'http://hooks.example.test:9/x', headers: {}, body: '{}', timeoutMs: 2000 };
    await expect(postWebhook(post, { resolve, refuses })).rejects.toThrow(new RegExp(`refused: hooks\\.example\\.test is ${address.replace(/\./g, '\\.')}, a private address`));
    expect(connected).toBe(false);
  });
});
