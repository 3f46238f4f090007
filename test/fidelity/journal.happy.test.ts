import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { JOURNAL_CAP } from '../../src/services/journal.js';
import { createBody, jsonRequest, memorySandbox } from '../helpers.js';

interface Entry {
  method: string;
  path: string;
  alias: boolean;
  status: number | string;
  code: number | null;
  latency_ms: number;
  fault: string | null;
  warnings: string[];
  request_body: unknown;
  response_body: Record<string, unknown> | null;
}

describe('request journal', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox();
  });
  afterAll(() => sandbox.close());

  async function journal(query = ''): Promise<Entry[]> {
    const res = await sandbox.fetch(jsonRequest('GET', `/sandbox/v1/requests${query}`));
    expect(res.status).toBe(200);
    return ((await res.json()) as { requests: Entry[] }).requests;
  }

  it('records method, path, status, code, bodies, latency and warnings, newest first', async () => {
    await sandbox.fetch(jsonRequest('DELETE', '/sandbox/v1/requests'));
    const body = createBody({ currency: 'SGD' });
    await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', body));
    await sandbox.fetch(jsonRequest('GET', '/openapi/v1/payments/payment/pay_unknown'));
    const [status, create] = await journal();
    expect(status).toMatchObject({ method: 'GET', path: '/openapi/v1/payments/payment/pay_unknown', status: 404, code: 404, request_body: null });
    expect(create).toMatchObject({ method: 'POST', path: '/openapi/v1/payments/payment', alias: false, status: 200, code: 200, fault: null });
    expect(create!.request_body).toEqual(body);
    expect(create!.response_body).toMatchObject({ code: 200, payment_id: expect.stringMatching(/^pay_/) });
    expect(create!.warnings.join()).toMatch(/unknown field "currency" ignored \(did you mean "currency_code"\?\)/);
    expect(create!.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it('flags calls through the /v1 alias', async () => {
    await sandbox.fetch(jsonRequest('POST', '/v1/payments/payment', createBody()));
    const [entry] = await journal('?limit=1');
    expect(entry).toMatchObject({ path: '/v1/payments/payment', alias: true, note: expect.stringMatching(/without \/openapi/) });
  });

  it('shows each body as its text was: amounts keep their two decimals', async () => {
    const sent = `{"payee":"${String(createBody().payee)}","product_type":"QR_DYNAMIC","merchant_ref_no":"journal-amounts","amount":10.50}`;
    const created = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', sent));
    const { payment_id: id } = (await created.json()) as { payment_id: string };
    await sandbox.fetch(jsonRequest('GET', `/openapi/v1/payments/payment/${id}`));
    const res = await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/requests?limit=2'));
    const text = await res.text();
    expect(text).toContain('"original_amount":10.50,"paid_currency_code":"SGD","paid_amount":10.50');
    expect(text).toContain('"request_body":{"payee":');
    expect(text).toContain('"merchant_ref_no":"journal-amounts","amount":10.50}');
  });

  it('shows a body written with \\u escapes as its text was too, amounts included', async () => {
    // As Python's json.dumps writes any non-ASCII character by default.
    const sent = `{"payee":"${String(createBody().payee)}","product_type":"QR_DYNAMIC","merchant_ref_no":"journal-escaped","amount":10.50,"note":"caf\\u00e9"}`;
    await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', sent));
    const text = await (await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/requests?limit=1'))).text();
    expect(text).toContain(`"request_body":${sent},"response_body":`);
  });

  it('shows a body whose secret ends in an escaped quote as JSON, the secret masked to *** and its last 4 characters', async () => {
    const sent = JSON.stringify({ ...createBody({ merchant_ref_no: 'journal-quote' }), sign: 'abcdefgh"xyz' });
    await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', sent));
    const [entry] = await journal('?limit=1');
    expect(entry!.request_body).toMatchObject({ merchant_ref_no: 'journal-quote', sign: '***"xyz' });
  });

  it('records the fault applied', async () => {
    await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody(), { 'Sandbox-Fault': 'latency=1, error-after-commit=502' }));
    const [entry] = await journal('?limit=1');
    expect(entry).toMatchObject({ status: 502, fault: 'latency=1, error-after-commit=502' });
  });

  it('records a magic amount and a Sandbox-Fault header of the same request, both, in the order applied', async () => {
    await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody({ amount: 900.01 }), { 'Sandbox-Fault': 'latency=1' }));
    const [entry] = await journal('?limit=1');
    expect(entry).toMatchObject({ status: 500, fault: 'latency=1, error=500 (magic amount 900.01)' });
  });

  it('masks sign in request bodies', async () => {
    await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody({ sign_type: 'SHA512', sign: 'a'.repeat(128) })));
    const [entry] = await journal('?limit=1');
    expect((entry!.request_body as { sign: string }).sign).toBe('***aaaa');
  });

  it('filters by method, path and status', async () => {
    const byStatus = await journal('?status=404');
    expect(byStatus.length).toBeGreaterThan(0);
    expect(byStatus.every((e) => e.status === 404)).toBe(true);
    const byMethod = await journal('?method=get');
    expect(byMethod.every((e) => e.method === 'GET')).toBe(true);
    const byPath = await journal('?path=/v1/payments');
    expect(byPath.every((e) => e.path.includes('/v1/payments'))).toBe(true);
  });

  it.each([['900.03', 402], ['900.04', 402]])('a create with magic amount %s refused before it commits is journaled without the fault it never met', async (amount) => {
    const body = createBody();
    expect((await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', body))).status).toBe(200);
    // The same merchant_ref_no again: refused (402) at once, so neither hold nor drop happens.
    const again = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', { ...body, amount: Number(amount) }));
    expect(again.status).toBe(402);
    const [entry] = await journal('?limit=1');
    expect(entry).toMatchObject({ status: 402, fault: null });
  });

  it('filters by the statuses a fault gives: dropped and held', async () => {
    // Magic amount 900.04: the create is committed and its connection dropped.
    await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody({ amount: 900.04 }))).catch(() => undefined);
    const dropped = await journal('?status=dropped');
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped.every((e) => e.status === 'dropped')).toBe(true);
    expect((await journal('?status=held')).every((e) => e.status === 'held')).toBe(true);
    const res = await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/requests?status=lost'));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { description: string }).description).toContain('status must be dropped, held or a whole number written in digits, such as 402, got "lost"');
  });

  it('rejects bad filters with 400', async () => {
    for (const q of ['?limit=0', '?limit=501', '?status=abc', '?method=G%20T']) {
      const res = await sandbox.fetch(jsonRequest('GET', `/sandbox/v1/requests${q}`));
      expect(res.status, q).toBe(400);
    }
  });

  it(`keeps only the newest ${JOURNAL_CAP} requests per merchant`, async () => {
    await sandbox.fetch(jsonRequest('DELETE', '/sandbox/v1/requests'));
    for (let i = 0; i < JOURNAL_CAP + 20; i++) await sandbox.fetch(jsonRequest('GET', `/openapi/v1/payments/payment/pay_n${i}`));
    const entries = await journal('?limit=500');
    expect(entries).toHaveLength(JOURNAL_CAP);
    expect(entries[0]!.path).toBe(`/openapi/v1/payments/payment/pay_n${JOURNAL_CAP + 19}`);
    expect(entries.at(-1)!.path).toBe('/openapi/v1/payments/payment/pay_n20');
  });

  it('DELETE empties it and says how many went', async () => {
    const res = await sandbox.fetch(jsonRequest('DELETE', '/sandbox/v1/requests'));
    const json = (await res.json()) as { deleted: number };
    expect(json.deleted).toBeGreaterThan(0);
    const after = await journal();
    // Only the GET just made is there.
    expect(after).toHaveLength(1);
  });

  it('one merchant never sees another merchant’s requests', async () => {
    const other = await sandbox.control.enroll();
    await sandbox.fetch(jsonRequest('GET', '/openapi/v1/payments/payment/pay_secret_probe', undefined, { 'Service-Api-Key': other.apiKey }));
    const mine = await journal('?limit=500');
    expect(mine.some((e) => e.path.includes('pay_secret_probe'))).toBe(false);
  });
});

describe('journal masking of long bodies', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox();
  });
  afterAll(() => sandbox.close());

  it('masks sign even when the body is cut and no longer parses', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v'.repeat(150)]));
    const secret = 'b'.repeat(128);
    // An unknown field makes the body longer than the 8 KiB the journal keeps.
    await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', { sign: secret, sign_type: 'SHA512', ...createBody({ metadata, notes: 'n'.repeat(4000) }) }));
    const text = await (await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/requests?method=POST&limit=1'))).text();
    const entry = (JSON.parse(text) as { requests: { request_body: unknown }[] }).requests[0]!;
    expect(typeof entry.request_body).toBe('string');
    expect(text).not.toContain('bbbbbbbbbbbbbbbb');
    expect(entry.request_body as string).toContain('"sign":"***bbbb"');
  });
});

describe('with SANDBOX_JOURNAL=off', () => {
  it('the journal and the readiness report say that nothing is recorded', async () => {
    const sandbox = await memorySandbox({ config: { journal: false } });
    try {
      await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody()));
      const journal = (await (await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/requests'))).json()) as { description: string; requests: unknown[] };
      expect(journal.requests).toEqual([]);
      expect(journal.description).toMatch(/journal is off on this sandbox \(SANDBOX_JOURNAL=off\)/);
      const report = (await (await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/readiness'))).json()) as { description: string; ready: boolean };
      expect(report.ready).toBe(false);
      expect(report.description).toMatch(/SANDBOX_JOURNAL=off.*not tried/);
    } finally {
      await sandbox.close();
    }
  });
});
