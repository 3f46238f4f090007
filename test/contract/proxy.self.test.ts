/** The validating proxy finds what it is there to find: a document altered in one place each is caught by real traffic. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Document } from 'openapi-backend';
import type { RunningServer, Sandbox } from '../../src/index.js';
import { DEMO_KEY, DEMO_PAYEE, memorySandbox, uniqueRef } from '../helpers.js';
import { startValidatingProxy } from '../support/validating-proxy.js';
import type { Violation } from '../support/validating-proxy.js';

type Ops = Record<string, Record<string, any>>;

describe('the validating proxy itself', () => {
  let sandbox: Sandbox;
  let server: RunningServer;
  let original: Document;
  beforeAll(async () => {
    sandbox = await memorySandbox();
    server = await sandbox.listen(0, '127.0.0.1');
    original = (await (await fetch(`${server.url}/openapi.json`)).json()) as Document;
  });
  afterAll(() => sandbox.close());

  /** The violations of `requests` through a proxy whose document `alter` changed. */
  async function violationsWith(alter: (paths: Ops, doc: any) => void, requests: (url: string) => Promise<unknown>): Promise<Violation[]> {
    const doc = structuredClone(original) as any;
    alter(doc.paths as Ops, doc);
    const proxy = await startValidatingProxy(doc as Document, server.url);
    try {
      await requests(proxy.url);
      return proxy.violations;
    } finally {
      await proxy.close();
    }
  }

  const create = (url: string, body: Record<string, unknown>) =>
    fetch(`${url}/openapi/v1/payments/payment`, {
      method: 'POST',
      headers: { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' },
      body: JSON.stringify({ payee: DEMO_PAYEE, product_type: 'QR_DYNAMIC', merchant_ref_no: uniqueRef('self'), amount: 10.5, ...body }),
    });
  const createPath = '/openapi/v1/payments/payment';

  it('a status the document does not declare', async () => {
    const found = await violationsWith(
      (paths) => delete paths['/sandbox/v1/payments/{payment_id}']!.get.responses['404'],
      (url) => fetch(`${url}/sandbox/v1/payments/pay_0000000000000000000000`, { headers: { 'Service-Api-Key': DEMO_KEY } }),
    );
    expect(found.map((v) => v.detail)).toEqual(['status 404 is not declared']);
  });

  it('a body field the schema does not have', async () => {
    const found = await violationsWith(
      (paths) => delete paths[createPath]!.post.responses['200'].content['application/json'].schema.properties.payment_code,
      (url) => create(url, {}),
    );
    expect(found.some((v) => v.kind === 'response' && /additional/.test(v.detail))).toBe(true);
  });

  it('a method the document does not list that the server serves, and a 405 whose Allow differs from the document', async () => {
    const found = await violationsWith(
      (paths) => delete paths['/sandbox/v1/clock']!.get,
      async (url) => {
        await fetch(`${url}/sandbox/v1/clock`, { headers: { 'Service-Api-Key': DEMO_KEY } });
        await fetch(`${url}/sandbox/v1/clock`, { method: 'PUT', headers: { 'Service-Api-Key': DEMO_KEY } });
      },
    );
    expect(found.map((v) => `${v.kind} ${v.exchange}: ${v.detail}`)).toEqual([
      'not served GET /sandbox/v1/clock -> 200: status 200 is neither the 405 of a method not served nor an answer that may come first',
      'not served PUT /sandbox/v1/clock -> 405: Allow "GET, HEAD" is not the methods the document lists (HEAD)',
    ]);
  });

  it('a media type the answer does not declare', async () => {
    const found = await violationsWith(
      (paths) => delete paths['/sandbox/v1/qr/{payment_token}']!.get.responses['200'].content['image/svg+xml'],
      async (url) => {
        const { payment_token } = (await (await create(url, {})).json()) as { payment_token: string };
        await fetch(`${url}/sandbox/v1/qr/${payment_token}?format=svg`);
      },
    );
    expect(found.some((v) => /image\/svg\+xml/.test(v.detail))).toBe(true);
  });

  it('a required header the answer lacks', async () => {
    const found = await violationsWith(
      (paths) => (paths['/healthz']!.get.responses['200'].headers['X-Missing'] = { required: true, schema: { type: 'string' } }),
      (url) => fetch(`${url}/healthz`),
    );
    expect(found.map((v) => v.detail)).toContain('the required header X-Missing is missing');
  });

  it('a document looser than the server (the amount rule left out)', async () => {
    const found = await violationsWith(
      (paths) => {
        const amount = paths[createPath]!.post.requestBody.content['application/json'].schema.properties.amount;
        delete amount.minimum;
        delete amount.anyOf;
      },
      (url) => Promise.all([create(url, { amount: 0 }), create(url, { amount: 10.555 })]),
    );
    expect(found.filter((v) => v.kind === 'looser')).toHaveLength(2);
  });

  it('a document stricter than the server', async () => {
    const found = await violationsWith(
      (paths) => (paths[createPath]!.post.requestBody.content['application/json'].schema.properties.merchant_ref_no.maxLength = 3),
      (url) => create(url, {}),
    );
    expect(found.map((v) => v.kind)).toEqual(['stricter']);
  });

  it('the unaltered document: none of these is a violation', async () => {
    const found = await violationsWith(
      () => {},
      async (url) => {
        await create(url, {});
        await create(url, { amount: 10.555 });
        await fetch(`${url}/healthz`);
        await fetch(`${url}/nowhere`);
      },
    );
    expect(found).toEqual([]);
  });
});
