/**
 * The unhappy paths, and one call of every operation, through a validating proxy: the server
 * answers only what the document declares, and the document refuses what the server refuses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/domain/signature.js';
import { StoreUnavailableError } from '../../src/store/unavailable.js';
import { receiver } from '../support/webhook-receiver.js';
import { openStream } from '../support/webhook-stream.js';
import { describeViolations } from '../support/validating-proxy.js';
import { DEMO_KEY, DEMO_PAYEE, uniqueRef } from '../helpers.js';
import { proxiedSandbox } from './support.js';

interface Sent {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: any;
}

describe('unhappy paths and every route through a validating proxy', () => {
  const live = proxiedSandbox({ config: { timeoutHoldMs: 5_000, webhookRetryDelaysMs: [0] } });
  let hook: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    hook = await receiver();
  });
  afterAll(() => hook.close());

  async function send(method: string, path: string, options: { key?: string | null; body?: unknown; raw?: string; type?: string; headers?: Record<string, string> } = {}): Promise<Sent> {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? DEMO_KEY : options.key;
    if (key !== null) headers['Service-Api-Key'] = key;
    const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (body !== undefined) headers['Content-Type'] = options.type ?? 'application/json';
    const res = await fetch(`${live.proxy.url}${path}`, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  const createBody = (extra: Record<string, unknown> = {}) => ({ payee: DEMO_PAYEE, product_type: 'QR_DYNAMIC', merchant_ref_no: uniqueRef('proxy'), amount: 10.5, ...extra });
  const create = async (extra: Record<string, unknown> = {}, key = DEMO_KEY) => {
    const answer = await send('POST', '/openapi/v1/payments/payment', { key, body: createBody(extra) });
    expect(answer.status, answer.text).toBe(200);
    return answer.json as { payment_id: string; payment_token: string; qr_data: { image_url: string; checkout_url: string } };
  };
  /** The proxy's verdict on the last request it saw. */
  const lastRequestValid = () => live.proxy.exchanges.at(-1)!.requestValid;

  it('bad bodies, wrong types and out-of-bounds amounts: 400, 413, 415, each refused by the document too', async () => {
    const bad: [string, Parameters<typeof send>[2], number][] = [
      ['malformed JSON', { raw: '{"payee": "x",,}' }, 400],
      ['a JSON array', { raw: '[1, 2]' }, 400],
      ['a string amount', { body: createBody({ amount: '10.50' }) }, 400],
      ['a null payee', { body: createBody({ payee: null }) }, 400],
      ['3 decimals', { body: createBody({ amount: 10.555 }) }, 400],
      ['amount 0', { body: createBody({ amount: 0 }) }, 400],
      ['amount 1e10', { body: createBody({ amount: 1e10 }) }, 400],
      ['a lower-case currency', { body: createBody({ currency_code: 'sgd' }) }, 400],
      ['an unknown product_type', { body: createBody({ product_type: 'QR_MAGIC' }) }, 400],
      ['a bad merchant_ref_no', { body: createBody({ merchant_ref_no: 'has space' }) }, 400],
      ['metadata of 51 keys', { body: createBody({ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }) }, 400],
      ['no body', {}, 400],
      ['text/plain', { raw: JSON.stringify(createBody()), type: 'text/plain' }, 415],
    ];
    for (const [name, options, code] of bad) {
      const answer = await send('POST', '/openapi/v1/payments/payment', options);
      expect(answer.status, `${name}: ${answer.text}`).toBe(code);
      expect(lastRequestValid(), `the document refuses ${name}`).toBe(false);
    }
    const big = await send('POST', '/openapi/v1/payments/payment', { body: createBody({ notes: 'x'.repeat(70_000) }) });
    expect(big.status).toBe(413);
    // Two decimals that floating point division gets wrong: the document and the server both accept them.
    for (const amount of [19.99, 0.07, 1.11, 4.02, 136.67, 10001.12, 9999999999.99, 0.01]) {
      const answer = await send('POST', '/openapi/v1/payments/payment', { body: createBody({ amount }) });
      expect(answer.status, `${amount}: ${answer.text}`).toBe(200);
      expect(lastRequestValid(), `the document accepts ${amount}`).toBe(true);
    }
  });

  it('405, 404, 401, 402 and 429', async () => {
    expect((await send('PUT', '/openapi/v1/payments/payment', { body: {} })).status).toBe(405);
    expect((await send('DELETE', '/openapi/v1/payments/payment/pay_0000000000000000000000')).status).toBe(405);
    expect((await send('PATCH', '/sandbox/v1/clock', { key: null })).status).toBe(405);
    expect((await send('POST', '/sandbox/v1/codes', { key: null })).status).toBe(405);
    expect((await send('GET', '/openapi/v1/payments/payment/pay_0000000000000000000000')).status).toBe(404);
    expect((await send('GET', '/openapi/v1/payments/payment/..%2F..%2Fetc')).status).toBe(404);
    expect((await send('GET', '/openapi/v1/payments/refunds')).status).toBe(404);
    expect((await send('GET', `/openapi/v1/payments/payment/pay_${'0'.repeat(2_100)}`)).status).toBe(414);
    expect((await send('POST', `/openapi/v1/payments/payment/pay_${'0'.repeat(2_100)}/cancel`, { body: { reason: 'x' } })).status).toBe(414);
    expect((await send('GET', '/openapi/v1/payments/payment/pay_0000000000000000000000', { key: null })).status).toBe(401);
    expect(lastRequestValid(), 'the document requires the key').toBe(false);
    expect((await send('GET', '/sandbox/v1/clock', { key: 'sk_sandbox_nope' })).status).toBe(401);
    expect((await send('DELETE', '/sandbox/v1/merchant', { key: 'sk_sandbox_nope' })).status).toBe(401);
    expect((await send('DELETE', '/sandbox/v1/merchant', { key: null })).status).toBe(401);
    expect((await send('PUT', '/sandbox/v1/merchant', { body: {} })).status).toBe(405);

    const signed = (await send('POST', '/sandbox/v1/merchants', { key: null, body: { require_signature: true } })).json as { api_key: string; payee_id: string; signing_salt: string };
    const body = { payee: signed.payee_id, product_type: 'QR_DYNAMIC', merchant_ref_no: uniqueRef('signed'), amount: 19.99 };
    const mismatch = await send('POST', '/openapi/v1/payments/payment', { key: signed.api_key, body: { ...body, sign_type: 'SHA512', sign: 'f'.repeat(128) } });
    expect(mismatch.status).toBe(401);
    expect(mismatch.json).toMatchObject({ string_to_sign: expect.any(String), signature_hint: expect.any(String) });
    expect((await send('POST', '/openapi/v1/payments/payment', { key: signed.api_key, body: { ...body, sign_type: 'SHA512', sign: signBody(body, signed.signing_salt) } })).status).toBe(200);

    const paid = await create({ payer: 'PAYER_PAYS' });
    expect((await send('POST', `/openapi/v1/payments/payment/${paid.payment_id}/cancel`, { body: { reason: 'too late' } })).status).toBe(402);
    const ref = uniqueRef('dup');
    await create({ merchant_ref_no: ref });
    const duplicate = await send('POST', '/openapi/v1/payments/payment', { body: createBody({ merchant_ref_no: ref }) });
    expect(duplicate.status).toBe(402);
    expect(duplicate.json.payment_id).toMatch(/^pay_/);

    const slow = (await send('POST', '/sandbox/v1/merchants', { key: null, body: { rate_limit_per_second: 1 } })).json as { api_key: string };
    const answers = [await send('GET', '/sandbox/v1/clock', { key: slow.api_key }), await send('GET', '/sandbox/v1/clock', { key: slow.api_key })];
    const limited = answers.find((a) => a.status === 429);
    expect(limited, 'the second request within a second is limited').toBeDefined();
    expect(limited!.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('faults injected by Sandbox-Fault: any error status, after commit, timeout, drop, latency, a bad header', async () => {
    for (const fault of ['error=500', 'error=503', 'error=504', 'error=418', 'error-after-commit=502', 'latency=5, error-after-commit=500', 'latency=5']) {
      const answer = await send('POST', '/openapi/v1/payments/payment', { body: createBody(), headers: { 'Sandbox-Fault': fault } });
      expect(answer.status, fault).toBe(Number(/\d{3}/.exec(fault)?.[0] ?? 200));
    }
    const status = await send('GET', '/openapi/v1/payments/payment/pay_0000000000000000000000', { headers: { 'Sandbox-Fault': 'error=503' } });
    expect(status.status).toBe(503);
    expect((await send('GET', '/openapi/v1/payments/payment/pay_0000000000000000000000', { headers: { 'Sandbox-Fault': 'explode' } })).status).toBe(400);
    expect(lastRequestValid(), 'the document refuses a fault it does not know').toBe(false);
    for (const magic of [900.01, 900.02]) expect((await send('POST', '/openapi/v1/payments/payment', { body: createBody({ amount: magic }) })).status).toBe(magic === 900.01 ? 500 : 503);

    await expect(send('POST', '/openapi/v1/payments/payment', { body: createBody(), headers: { 'Sandbox-Fault': 'drop' } })).rejects.toThrow();
    const held = fetch(`${live.proxy.url}/openapi/v1/payments/payment`, {
      method: 'POST',
      headers: { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json', 'Sandbox-Fault': 'timeout' },
      body: JSON.stringify(createBody()),
      signal: AbortSignal.timeout(300),
    });
    await expect(held).rejects.toThrow();
  });

  it('a store that cannot be reached: 503 with Retry-After (and /healthz, /readyz 503, /livez 200)', async () => {
    const { store } = live.sandbox.services;
    const p = await create();
    const unreachable = async (): Promise<never> => {
      throw new StoreUnavailableError('connection refused', false);
    };
    const saved = { paymentByToken: store.paymentByToken, ready: store.ready };
    Object.assign(store, { paymentByToken: unreachable, ready: unreachable });
    try {
      const image = await send('GET', `/sandbox/v1/qr/${p.payment_token}`, { key: null });
      expect(image.status).toBe(503);
      expect(image.headers.get('retry-after')).toBe('2');
      expect((await send('GET', '/healthz', { key: null })).status).toBe(503);
      expect((await send('GET', '/readyz', { key: null })).status).toBe(503);
      expect((await send('GET', '/livez', { key: null })).status).toBe(200);
    } finally {
      Object.assign(store, saved);
    }
  });

  it('webhook drills: no URL is 402; a bad type or drills out of bounds are 400, refused by the document too', async () => {
    const drills = (await send('POST', '/sandbox/v1/merchants', { key: null, body: { name: 'Drill Shop' } })).json as { api_key: string };
    const key = drills.api_key;
    expect((await send('POST', '/sandbox/v1/webhook/test', { key, body: { type: 'payment.paid' } })).status).toBe(402);
    expect((await send('POST', '/sandbox/v1/webhook/secret', { key })).status).toBe(402);
    const set = await send('PUT', '/sandbox/v1/webhook', { key, body: { url: hook.url, faults: { duplicate: 0.5, reorder: true, delay_seconds: 3600 } } });
    expect(set.status).toBe(200);
    expect(lastRequestValid(), 'the document accepts drills within bounds').toBe(true);
    const bad: [string, string, unknown][] = [
      ['PUT', '/sandbox/v1/webhook', { url: hook.url, faults: { duplicate: 2 } }],
      ['PUT', '/sandbox/v1/webhook', { url: hook.url, faults: { duplicate: -1 } }],
      ['PUT', '/sandbox/v1/webhook', { url: hook.url, faults: { delay_seconds: 3601 } }],
      ['PUT', '/sandbox/v1/webhook', { url: hook.url, faults: { delay_seconds: 1.5 } }],
      ['PUT', '/sandbox/v1/webhook', { url: hook.url, faults: { reorder: 'yes' } }],
      ['PUT', '/sandbox/v1/webhook', { url: hook.url, faults: [] }],
      ['PUT', '/sandbox/v1/webhook', {}],
      ['POST', '/sandbox/v1/webhook/test', { type: 'payment.refunded' }],
      ['POST', '/sandbox/v1/webhook/test', {}],
    ];
    for (const [method, path, body] of bad) {
      const answer = await send(method, path, { key, body });
      expect(answer.status, `${method} ${path} ${JSON.stringify(body)}: ${answer.text}`).toBe(400);
      expect(lastRequestValid(), `the document refuses ${JSON.stringify(body)}`).toBe(false);
    }
    expect((await send('GET', '/sandbox/v1/webhook', { key })).json.faults).toEqual({ duplicate: 0.5, reorder: true, delay_seconds: 3600 });
    expect((await send('PUT', '/sandbox/v1/webhook', { key, body: { faults: { duplicate: 1 } } })).json).toMatchObject({ url: hook.url, faults: { duplicate: 1 } });
    expect(lastRequestValid(), 'the document accepts faults alone').toBe(true);
    expect((await send('PUT', '/sandbox/v1/webhook', { key, body: { url: null, faults: null } })).status).toBe(200);
  });

  it('every operation of the document answers as declared, at least once successfully', async () => {
    const p = await create();
    const token = p.payment_token;
    // Images and pages: PNG, SVG, 304, HTML 200, 303, 402 and 404.
    const png = await send('GET', `/sandbox/v1/qr/${token}`, { key: null });
    expect(png.headers.get('content-type')).toBe('image/png');
    expect((await send('GET', `/sandbox/v1/qr/${token}?format=svg`, { key: null })).headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect((await send('GET', `/sandbox/v1/qr/${token}`, { key: null, headers: { 'If-None-Match': png.headers.get('etag')! } })).status).toBe(304);
    expect((await send('GET', `/sandbox/v1/qr/${token}?format=gif`, { key: null })).status).toBe(400);
    expect((await send('GET', '/sandbox/v1/qr/ptok_nope', { key: null })).status).toBe(404);
    expect((await send('GET', `/sandbox/pay/${token}`, { key: null })).status).toBe(200);
    expect((await send('GET', '/sandbox/pay/ptok_nope', { key: null })).status).toBe(404);
    expect((await send('POST', `/sandbox/pay/${token}/pay`, { key: null })).status).toBe(303);
    expect((await send('POST', `/sandbox/pay/${token}/decline`, { key: null })).status).toBe(402);
    const declined = await create();
    expect((await send('POST', `/sandbox/pay/${declined.payment_token}/decline`, { key: null })).status).toBe(303);
    expect((await send('POST', '/sandbox/pay/ptok_nope/pay', { key: null })).status).toBe(404);

    // Service and reference routes.
    for (const path of ['/livez', '/readyz', '/healthz', '/metrics', '/openapi.json', '/docs', '/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js', '/sandbox', '/sandbox/assets/dashboard.js', '/sandbox/v1/codes', '/sandbox/v1/magic']) {
      expect((await send('GET', path, { key: null })).status, path).toBe(200);
    }
    expect((await send('GET', '/docs/assets/package.json', { key: null })).status).toBe(404);

    // The public routes under both prefixes.
    for (const prefix of ['/openapi/v1', '/v1']) {
      const a = (await send('POST', `${prefix}/payments/payment`, { body: createBody() })).json.payment_id as string;
      expect((await send('GET', `${prefix}/payments/payment/${a}`)).status).toBe(200);
      expect((await send('POST', `${prefix}/payments/payment/${a}/assign`, { body: { payer: 'payer-1' } })).status).toBe(200);
      expect((await send('POST', `${prefix}/payments/payment/${a}/cancel`, { body: { reason: 'changed mind' } })).status).toBe(200);
      const b = (await create({ payer: 'PAYER_PAYS' })).payment_id;
      expect((await send('POST', `${prefix}/payments/payment/${b}/void`, { body: { reason: 'refund' } })).status).toBe(200);
    }

    // Control routes.
    const c = (await create()).payment_id;
    const d = (await create()).payment_id;
    const calls: [string, string, unknown?][] = [
      ['GET', '/sandbox/v1/merchant'],
      ['GET', '/sandbox/v1/payments?limit=5&status=P'],
      ['GET', `/sandbox/v1/payments/${c}`],
      ['GET', `/sandbox/v1/payments/${c}/events`],
      ['POST', `/sandbox/v1/payments/${c}/pickup`],
      ['POST', `/sandbox/v1/payments/${c}/pay`, { paid_currency_code: 'USD' }],
      ['POST', `/sandbox/v1/payments/${c}/settle`],
      ['POST', `/sandbox/v1/payments/${d}/fail`, { reason: 'card declined' }],
      ['POST', '/sandbox/v1/settle'],
      ['GET', '/sandbox/v1/clock'],
      ['POST', '/sandbox/v1/clock/advance', { seconds: 60 }],
      ['POST', '/sandbox/v1/tools/sign', createBody()],
      ['GET', '/sandbox/v1/requests?limit=3'],
      ['GET', '/sandbox/v1/readiness'],
      ['GET', '/sandbox/v1/readiness/junit'],
      ['PUT', '/sandbox/v1/webhook', { url: hook.url }],
      ['POST', '/sandbox/v1/webhook/secret'],
      ['GET', '/sandbox/v1/webhook'],
      ['POST', '/sandbox/v1/webhook/test', { type: 'payment.paid' }],
    ];
    for (const [method, path, body] of calls) expect((await send(method, path, body === undefined ? {} : { body })).status, `${method} ${path}`).toBe(200);
    const e = (await create()).payment_id;
    expect((await send('POST', `/sandbox/v1/payments/${e}/expire`)).status).toBe(200);

    // Webhooks: wait for a delivery to finish, then replay it.
    let deliveryId: string | undefined;
    for (let i = 0; i < 200 && !deliveryId; i++) {
      const list = await send('GET', '/sandbox/v1/webhook/deliveries?limit=5');
      deliveryId = (list.json.deliveries as { id: string; state: string }[]).find((x) => x.state !== 'pending')?.id;
      if (!deliveryId) await new Promise((r) => setTimeout(r, 20));
    }
    expect(deliveryId).toBeDefined();
    expect((await send('POST', `/sandbox/v1/webhook/deliveries/${deliveryId}/replay`)).status).toBe(200);
    expect((await send('PUT', '/sandbox/v1/webhook', { body: { url: null } })).status).toBe(200);

    // The listen stream never ends, and the proxy checks whole answers: the stream itself is read in test/webhooks/listen.*,
    // beside the proxy here; its HEAD and the listener's answer go through the proxy.
    const listener = (await send('POST', '/sandbox/v1/merchants', { key: null, body: { name: 'Listen Shop' } })).json as { api_key: string; payee_id: string };
    expect((await send('HEAD', '/sandbox/v1/webhook/stream', { key: listener.api_key })).status).toBe(200);
    const stream = await openStream(live.sandbox, listener.api_key);
    try {
      await stream.next('hello');
      await create({ payee: listener.payee_id }, listener.api_key);
      const event = await stream.next('delivery');
      const answered = await send('POST', '/sandbox/v1/webhook/stream/answers', { key: listener.api_key, body: { delivery_id: event.delivery_id, attempt: event.attempt, status: 200, latency_ms: 2, error: null } });
      expect(answered.status, answered.text).toBe(200);
    } finally {
      await stream.close();
    }

    // Fault rules and the journal.
    const rule = (await send('POST', '/sandbox/v1/faults', { body: { match: { method: 'GET', path: '/openapi/v1/payments/payment/*' }, fault: 'error=500', times: 1 } })).json.rule as { id: string };
    expect((await send('GET', '/sandbox/v1/faults')).status).toBe(200);
    expect((await send('DELETE', `/sandbox/v1/faults/${rule.id}`)).status).toBe(200);
    expect((await send('DELETE', '/sandbox/v1/faults')).status).toBe(200);
    expect((await send('DELETE', '/sandbox/v1/requests')).status).toBe(200);
    const other = (await send('POST', '/sandbox/v1/merchants', { key: null, body: { name: 'Reset Shop' } })).json as { api_key: string; payee_id: string };
    expect((await send('POST', '/sandbox/v1/reset', { key: other.api_key })).status).toBe(200);
    expect((await send('DELETE', '/sandbox/v1/merchant', { key: other.api_key })).status).toBe(200);
    expect((await send('DELETE', '/sandbox/v1/merchant', { key: other.api_key })).status).toBe(401);

    // HEAD of every path a GET above succeeded on: the same headers, no body.
    const gotten = new Set(live.proxy.exchanges.filter((x) => x.method === 'GET' && x.status === 200).map((x) => x.path));
    for (const path of gotten) {
      const head = await send('HEAD', path);
      expect(head.status, `HEAD ${path}`).toBe(200);
    }

    const operations = Object.entries(live.document.paths ?? {}).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { operationId: string; tags: string[] }>)
        .filter(([method]) => !(path === '/sandbox/v1/webhook/stream' && method === 'get'))
        .map(([, op]) => op),
    );
    const succeeded = new Set(live.proxy.exchanges.filter((x) => typeof x.status === 'number' && x.status < 400).map((x) => x.operationId));
    expect(operations.map((op) => op.operationId).filter((id) => !succeeded.has(id))).toEqual([]);
  }, 60_000);

  it('no request or answer differed from the document', () => {
    expect(live.proxy.exchanges.length).toBeGreaterThan(100);
    expect(live.proxy.violations, describeViolations(live.proxy.violations)).toEqual([]);
  });
});
