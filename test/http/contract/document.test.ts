/** /openapi.json: a valid OpenAPI 3.1 document, generated from the routes, declaring what the server enforces and answers. */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { memorySandbox } from '../../helpers.js';

type Json = Record<string, any>;

describe('the OpenAPI document', () => {
  let sandbox: Sandbox;
  let doc: Json;
  beforeAll(async () => {
    sandbox = await memorySandbox();
    doc = (await (await sandbox.fetch(new Request('http://sandbox.test/openapi.json'))).json()) as Json;
  });
  afterAll(() => sandbox.close());

  /** A $ref of the document, followed. */
  const resolve = (node: Json): Json => (node.$ref ? resolve((node.$ref as string).slice(2).split('/').reduce((at: Json, key) => at[key], doc)) : node);
  const operations = (): [string, string, Json][] => Object.entries(doc.paths as Json).flatMap(([path, item]) => Object.entries(item as Json).map(([method, op]) => [path, method, op as Json] as [string, string, Json]));
  const served = operations;
  const op = (method: string, path: string): Json => doc.paths[path][method];
  const answer = (method: string, path: string, status: string): Json => resolve(op(method, path).responses[status]);

  it('passes a standard OpenAPI 3.1 validator without an error', async () => {
    const result = await new Validator().validate(doc as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(new Set(operations().map(([, , o]) => o.operationId)).size).toBe(operations().length);
  });

  it('declares servers: the origin it was asked from, or PUBLIC_BASE_URL', async () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: 'http://sandbox.test' })]);
    const other = (await (await sandbox.fetch(new Request('http://127.0.0.1:9999/openapi.json'))).json()) as Json;
    expect(other.servers[0].url).toBe('http://127.0.0.1:9999');
    const behindProxy = await memorySandbox({ config: { publicBaseUrl: 'https://sandbox.example.test/payreq' } });
    try {
      const proxied = (await (await behindProxy.fetch(new Request('http://internal:3000/openapi.json'))).json()) as Json;
      expect(proxied.servers[0].url).toBe('https://sandbox.example.test/payreq');
    } finally {
      await behindProxy.close();
    }
  });

  it('has an operation for every route the app serves and none other: no operation for a wrong method', () => {
    const documented = new Set(served().map(([path, method]) => `${method.toUpperCase()} ${path.replace(/\{\w+\}/g, '{}')}`));
    const appRoutes = sandbox.app.routes.filter((r) => r.method !== 'ALL' && !r.path.includes('*'));
    // Hono answers HEAD from a path's GET handler.
    const routes = new Set(appRoutes.flatMap((r) => (r.method === 'GET' ? ['GET', 'HEAD'] : [r.method]).map((m) => `${m} ${r.path.replace(/:\w+/g, '{}')}`)));
    expect([...routes].filter((r) => !documented.has(r))).toEqual([]);
    expect([...documented].filter((r) => !routes.has(r))).toEqual([]);
    expect(routes.size).toBeGreaterThan(40);
    expect(operations().length).toBe(documented.size);
    for (const [path, method, o] of operations()) {
      expect(o.summary, `${method} ${path}`).toMatch(/\S/);
      expect(o.description, `${method} ${path}`).toMatch(/\S{3}/);
      expect(o.summary.startsWith('Not served'), `${method} ${path}`).toBe(false);
    }
  });

  it('describes 405 once, in its text and one shared answer, and the server answers it for every method no operation lists', async () => {
    expect(doc.info.description).toMatch(/A method a path does not serve answers 405 with the MethodNotAllowed answer \(components\/responses\)/);
    const shared = doc.components.responses.MethodNotAllowed;
    expect(shared.content['application/json'].schema.properties.code.const).toBe(405);
    expect(resolve(shared.headers.Allow).required).toBe(true);
    // Every 405 an operation declares (the injected ones of the public routes) is that one answer (HEAD's is its copy without the body).
    const declared = operations().flatMap(([, method, o]) => (o.responses['405'] && method !== 'head' ? [o.responses['405'].$ref] : []));
    expect(declared.length).toBeGreaterThan(0);
    expect(new Set(declared)).toEqual(new Set(['#/components/responses/MethodNotAllowed']));
    // The server still answers 405, with Allow naming exactly the methods the document lists for the path.
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      const listed = Object.keys(item).map((m) => m.toUpperCase()).sort();
      const concrete = path.replace('{payment_id}', 'pay_0000000000000000000000').replace(/\{\w+\}/g, 'x');
      for (const method of ['GET', 'PUT', 'POST', 'DELETE', 'PATCH'].filter((m) => !listed.includes(m))) {
        const res = await sandbox.fetch(new Request(`http://sandbox.test${concrete}`, { method }));
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get('allow')?.split(', ').sort(), `${method} ${path}`).toEqual(listed);
      }
    }
  });

  it('every answer of every operation declares Request-Id', () => {
    for (const [path, method, o] of operations()) {
      for (const [status, a] of Object.entries(o.responses as Json)) {
        expect(resolve(resolve(a as Json).headers['Request-Id']).required, `${method} ${path} ${status}`).toBe(true);
      }
    }
  });

  it('declares the bounds of create: amount, patterns, lengths, enums', () => {
    const schema = op('post', '/openapi/v1/payments/payment').requestBody.content['application/json'].schema;
    expect(schema.required.sort()).toEqual(['amount', 'merchant_ref_no', 'payee', 'product_type']);
    expect(schema.properties.amount).toMatchObject({ type: 'number', minimum: 0.01, maximum: 9999999999.99, anyOf: [{ multipleOf: 0.01 }, { allOf: [{ multipleOf: 1 / 4100 }, { multipleOf: 1 / 33100 }] }] });
    expect(schema.properties.merchant_ref_no).toMatchObject({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._-]+$' });
    expect(schema.properties.product_type.enum).toEqual(['QR_DYNAMIC', 'QR_STATIC', 'IN_APP']);
    expect(schema.properties.currency_code.anyOf[0].enum).toContain('SGD');
    expect(schema.properties.payer.anyOf[0]).toMatchObject({ minLength: 1, maxLength: 64 });
    expect(schema.properties.metadata.anyOf[0]).toMatchObject({ type: 'object', maxProperties: 50 });
    expect(schema.additionalProperties).toBeUndefined();
    const reason = op('post', '/openapi/v1/payments/payment/{payment_id}/cancel').requestBody.content['application/json'].schema;
    expect(reason.properties.reason).toMatchObject({ minLength: 1, maxLength: 255 });
    const id = op('get', '/openapi/v1/payments/payment/{payment_id}').parameters.find((p: Json) => p.name === 'payment_id');
    expect(id.schema.pattern).toBe('^pay_[0-9A-Za-z]{22}$');
  });

  it('declares every status a public route can answer, faults included, with their headers', () => {
    for (const prefix of ['/openapi/v1', '/v1']) {
      const create = op('post', `${prefix}/payments/payment`);
      expect(Object.keys(create.responses)).toEqual(['200', '400', '401', '402', '405', '408', '413', '415', '429', '431', '500', '503', '504', '4XX', '5XX']);
      expect(create.parameters.map((p: Json) => p.name)).toEqual(['Sandbox-Fault', 'Idempotency-Key']);
      const unauthenticated = answer('post', `${prefix}/payments/payment`, '401').content['application/json'].schema;
      expect(Object.keys(unauthenticated.properties)).toEqual(['code', 'description', 'string_to_sign', 'signature_hint']);
      expect(Object.keys(op('get', `${prefix}/payments/payment/{payment_id}`).responses)).toEqual(['200', '400', '401', '404', '405', '408', '414', '429', '431', '500', '503', '504', '4XX', '5XX']);
      expect(Object.keys(op('head', `${prefix}/payments/payment/{payment_id}`).responses)).toEqual(['200', '400', '401', '404', '405', '408', '414', '429', '431', '500', '503', '504', '4XX', '5XX']);
      expect(op('head', `${prefix}/payments/payment/{payment_id}`).responses['200'].content).toBeUndefined();
      // Only a path with a parameter can be sent over 2,048 characters.
      expect(op('post', `${prefix}/payments/payment/{payment_id}/cancel`).responses).toHaveProperty('414');
      expect(op('post', `${prefix}/payments/payment`).responses).not.toHaveProperty('414');
    }
    expect(resolve(answer('post', '/openapi/v1/payments/payment', '429').headers['Retry-After']).required).toBe(true);
    expect(resolve(answer('post', '/openapi/v1/payments/payment', '503').headers['Retry-After']).required).toBe(false);
    // An injected 405 carries the path's Allow like a real one.
    expect(resolve(answer('post', '/openapi/v1/payments/payment', '405').headers.Allow).required).toBe(true);
    expect(op('put', '/openapi/v1/payments/payment')).toBeUndefined();
    expect(op('get', '/sandbox/v1/clock').responses).toHaveProperty('429');
    expect(op('post', '/sandbox/v1/clock/advance').responses).toHaveProperty('413');
    expect(op('post', '/sandbox/v1/clock/advance').responses).toHaveProperty('415');
  });

  it('declares the media type of every answer: PNG and SVG, HTML pages (their 404 and 402 too), Prometheus text', () => {
    expect(Object.keys(answer('get', '/sandbox/v1/qr/{payment_token}', '200').content)).toEqual(['image/png', 'image/svg+xml']);
    expect(answer('get', '/sandbox/v1/qr/{payment_token}', '304').content).toBeUndefined();
    expect(op('get', '/sandbox/v1/qr/{payment_token}').parameters.find((p: Json) => p.name === 'format').schema.enum).toEqual(['png', 'svg']);
    expect(Object.keys(answer('get', '/sandbox/pay/{payment_token}', '200').content)).toEqual(['text/html']);
    expect(Object.keys(answer('get', '/sandbox/pay/{payment_token}', '404').content)).toEqual(['text/html']);
    expect(Object.keys(answer('post', '/sandbox/pay/{payment_token}/pay', 'default').content)).toEqual(['text/html']);
    expect(resolve(answer('post', '/sandbox/pay/{payment_token}/pay', '303').headers.Location).required).toBe(true);
    expect(Object.keys(answer('get', '/sandbox', '200').content)).toEqual(['text/html']);
    expect(Object.keys(answer('get', '/metrics', '200').content)).toEqual(['text/plain']);
    expect(Object.keys(answer('get', '/docs/assets/{file}', '200').content)).toEqual(['text/css', 'text/javascript']);
  });

  it('declares /openapi.json as an OpenAPI document, not the envelope', () => {
    const schema = answer('get', '/openapi.json', '200').content['application/json'].schema;
    expect(schema.required).toEqual(['openapi', 'info', 'paths']);
    expect(schema.properties.code).toBeUndefined();
  });
});
