/**
 * Webhook drills, unhappy paths (SPEC 16, SPEC 10): no URL is a 402; a bad event type, bad
 * drills and bad bodies are 400s with a description naming the field and the rule, and change
 * nothing; nothing is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../src/domain/webhook-drills.js';
import type { EnrolledMerchant, Sandbox } from '../../src/index.js';
import { receiver } from '../support/webhook-receiver.js';
import { memorySandbox } from '../helpers.js';

describe('webhook drills: bad input', () => {
  let sandbox: Sandbox;
  let hook: Awaited<ReturnType<typeof receiver>>;
  let merchant: EnrolledMerchant;
  const drills = { duplicate: 0.5, reorder: true, delay_seconds: 30 };

  beforeAll(async () => {
    sandbox = await memorySandbox();
    hook = await receiver();
    merchant = await sandbox.control.enroll({ name: 'Unhappy Drills' });
    const set = await send('PUT', '/sandbox/v1/webhook', { body: { url: hook.url, faults: drills } });
    expect(set.status).toBe(200);
  });
  afterAll(async () => {
    await sandbox.close();
    await hook.close();
  });

  async function send(method: string, route: string, options: { body?: unknown; raw?: string; type?: string; key?: string } = {}) {
    const headers: Record<string, string> = { 'Service-Api-Key': options.key ?? merchant.apiKey };
    const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (body !== undefined) headers['Content-Type'] = options.type ?? 'application/json';
    const res = await sandbox.fetch(new Request(`http://sandbox.test${route}`, { method, headers, body }));
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  }

  async function expectUnchanged(): Promise<void> {
    const now = await send('GET', '/sandbox/v1/webhook');
    expect(now.body).toMatchObject({ url: hook.url, faults: drills });
  }

  const badFaults: [string, unknown, RegExp][] = [
    ['duplicate 2', { duplicate: 2 }, /faults\.duplicate must be between 0 and 1, got 2\b/],
    ['duplicate -0.1', { duplicate: -0.1 }, /faults\.duplicate must be between 0 and 1, got -0\.1/],
    ['duplicate 1e308', { duplicate: 1e308 }, /faults\.duplicate must be between 0 and 1/],
    ['duplicate as a string', { duplicate: '0.5' }, /faults\.duplicate must be a probability from 0 to 1, got a string/],
    ['duplicate true', { duplicate: true }, /faults\.duplicate must be a probability from 0 to 1, got a boolean/],
    ['reorder "yes"', { reorder: 'yes' }, /faults\.reorder must be true or false, got a string/],
    ['reorder 1', { reorder: 1 }, /faults\.reorder must be true or false, got a number/],
    ['delay_seconds 3601', { delay_seconds: 3601 }, /faults\.delay_seconds must be between 0 and 3600, got 3601/],
    ['delay_seconds -1', { delay_seconds: -1 }, /faults\.delay_seconds must be between 0 and 3600, got -1/],
    ['delay_seconds 1.5', { delay_seconds: 1.5 }, /faults\.delay_seconds must be a whole number of seconds, got 1\.5/],
    ['delay_seconds "10"', { delay_seconds: '10' }, /faults\.delay_seconds must be a whole number of sandbox seconds/],
    ['delay_seconds 1e21', { delay_seconds: 1e21 }, /faults\.delay_seconds must be/],
    ['faults an array', [], /faults must be an object/],
    ['faults a string', 'on', /faults must be an object/],
    ['faults true', true, /faults must be an object/],
    ['one good, one bad', { reorder: false, duplicate: 3 }, /faults\.duplicate must be between 0 and 1, got 3/],
  ];
  for (const [name, faults, message] of badFaults) {
    it(`PUT faults with ${name} is 400, names the field and the rule, and changes nothing`, async () => {
      const answer = await send('PUT', '/sandbox/v1/webhook', { body: { url: `${hook.url}/other`, faults } });
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe(400);
      expect(answer.body.description).toMatch(message);
      await expectUnchanged();
    });
  }

  it('a bad url with good faults is 400 and changes neither', async () => {
    const answer = await send('PUT', '/sandbox/v1/webhook', { body: { url: 'ftp://x.test/', faults: {} } });
    expect(answer.status).toBe(400);
    expect(answer.body.description).toMatch(/url/);
    await expectUnchanged();
  });

  it('neither url nor faults is 400 (one of them is required) and changes nothing', async () => {
    for (const body of [{}, { urls: hook.url }]) {
      const answer = await send('PUT', '/sandbox/v1/webhook', { body });
      expect(answer.status).toBe(400);
      expect(answer.body.description).toMatch(/url is required .*, or faults to change only the drills/);
    }
    await expectUnchanged();
  });

  it('bad faults sent alone are 400 and change nothing', async () => {
    const answer = await send('PUT', '/sandbox/v1/webhook', { body: { faults: { delay_seconds: 7200 } } });
    expect(answer.status).toBe(400);
    expect(answer.body.description).toMatch(/faults\.delay_seconds must be between 0 and 3600, got 7200/);
    await expectUnchanged();
  });

  it('an unknown member of faults is ignored but named in Sandbox-Warning', async () => {
    const answer = await send('PUT', '/sandbox/v1/webhook', { body: { url: hook.url, faults: { ...drills, dupliate: 1 } } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('sandbox-warning')).toMatch(/faults\.dupliate/);
    await expectUnchanged();
  });

  const badTests: [string, { body?: unknown; raw?: string; type?: string }, number, RegExp][] = [
    ['an unknown type', { body: { type: 'payment.refunded' } }, 400, /type must be one of payment\.created, .*payment\.settled, got "payment\.refunded"/],
    ['a type without payment.', { body: { type: 'paid' } }, 400, /type must be one of/],
    ['no type', { body: {} }, 400, /type is required \(one of payment\.created/],
    ['a null type', { body: { type: null } }, 400, /type must be one of .*, got null/],
    ['a numeric type', { body: { type: 7 } }, 400, /type must be one of .*, got 7/],
    ['a very long type', { body: { type: 'x'.repeat(10_000) } }, 400, /got "x{64}…"/],
    ['no body', {}, 400, /JSON object body is required/],
    ['malformed JSON', { raw: '{"type": "payment.paid",,}' }, 400, /not valid JSON/],
    ['a JSON array', { raw: '["payment.paid"]' }, 400, /must be a JSON object/],
    ['text/plain', { raw: '{"type": "payment.paid"}', type: 'text/plain' }, 415, /Content-Type must be application\/json/],
  ];
  for (const [name, options, status, message] of badTests) {
    it(`POST /webhook/test with ${name} is ${status} and sends nothing`, async () => {
      const before = hook.received.length;
      const answer = await send('POST', '/sandbox/v1/webhook/test', options);
      expect(answer.status).toBe(status);
      expect(answer.body.description).toMatch(message);
      expect((await send('GET', '/sandbox/v1/webhook/deliveries')).body.deliveries).toEqual([]);
      expect(hook.received.length).toBe(before);
    });
  }

  it('the 400 for a bad type lists every type the sandbox sends', async () => {
    const answer = await send('POST', '/sandbox/v1/webhook/test', { body: { type: 'payment.nope' } });
    for (const type of WEBHOOK_EVENT_TYPES) expect(answer.body.description).toContain(type);
  });

  it('without a key: 401', async () => {
    const answer = await send('POST', '/sandbox/v1/webhook/test', { body: { type: 'payment.paid' }, key: 'sk_sandbox_nope' });
    expect(answer.status).toBe(401);
  });
});

describe('webhook drills: no URL', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox();
  });
  afterAll(() => sandbox.close());

  it('POST /webhook/test without a URL is 402 saying to PUT /sandbox/v1/webhook first, and records nothing', async () => {
    const merchant = await sandbox.control.enroll({ name: 'No Hook Shop' });
    const headers = { 'Service-Api-Key': merchant.apiKey, 'Content-Type': 'application/json' };
    const res = await sandbox.fetch(new Request('http://sandbox.test/sandbox/v1/webhook/test', { method: 'POST', headers, body: JSON.stringify({ type: 'payment.paid' }) }));
    expect(res.status).toBe(402);
    const body = (await res.json()) as { code: number; description: string };
    expect(body.code).toBe(402);
    expect(body.description).toMatch(/No webhook URL is set: PUT \/sandbox\/v1\/webhook .* first/);
    const log = await sandbox.fetch(new Request('http://sandbox.test/sandbox/v1/webhook/deliveries', { headers }));
    expect(((await log.json()) as { deliveries: unknown[] }).deliveries).toEqual([]);
  });

  it('after PUT {url: null} the test is 402 again, and the drills set before are kept', async () => {
    const hook = await receiver();
    try {
      const merchant = await sandbox.control.enroll({ name: 'Off Shop' });
      const headers = { 'Service-Api-Key': merchant.apiKey, 'Content-Type': 'application/json' };
      const put = (body: unknown) => sandbox.fetch(new Request('http://sandbox.test/sandbox/v1/webhook', { method: 'PUT', headers, body: JSON.stringify(body) }));
      expect((await put({ url: hook.url, faults: { reorder: true } })).status).toBe(200);
      const off = (await (await put({ url: null })).json()) as { url: null; faults: unknown };
      expect(off).toMatchObject({ url: null, faults: { duplicate: 0, reorder: true, delay_seconds: 0 } });
      const res = await sandbox.fetch(new Request('http://sandbox.test/sandbox/v1/webhook/test', { method: 'POST', headers, body: JSON.stringify({ type: 'payment.created' }) }));
      expect(res.status).toBe(402);
      expect(hook.received).toEqual([]);
    } finally {
      await hook.close();
    }
  });
});
