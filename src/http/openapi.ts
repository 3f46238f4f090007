/**
 * The OpenAPI 3.1 document of every route, built from the zod schemas that validate requests,
 * and an offline reference page at /docs (swagger-ui's assets served from node_modules).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Hono } from 'hono';
import { z } from 'zod';
import { CODE_CATALOGUE } from '../domain/codes.js';
import type { AppEnv } from './context.js';
import {
  advanceClockSchema,
  deliveriesQuerySchema,
  webhookSchema,
  assignSchema,
  createPaymentSchema,
  emptySchema,
  enrollSchema,
  failSchema,
  faultRuleSchema,
  journalQuerySchema,
  listQuerySchema,
  paySchema,
  pickupSchema,
  reasonSchema,
} from './schemas.js';

type Auth = 'key' | 'none' | 'admin';

interface RouteDoc {
  readonly method: 'get' | 'post' | 'put' | 'delete';
  readonly path: string;
  readonly summary: string;
  readonly tag: 'Payments' | 'Payments (alias)' | 'Sandbox control' | 'Sandbox tools' | 'Pages' | 'Service';
  readonly auth: Auth;
  readonly body?: z.ZodObject;
  readonly bodyOptional?: boolean;
  readonly query?: z.ZodObject;
  readonly response?: z.ZodType;
  readonly codes: readonly number[];
  readonly produces?: string;
}

const amountNumber = z.number().meta({ description: 'Written with exactly two decimals in the JSON text, e.g. 10.50' });
const envelope = z.object({ code: z.number().int(), description: z.string() });
const qrDataSchema = z.object({
  payload: z.string().meta({ description: 'EMVCo merchant-presented payload (tag 62/05 carries payment_code; CRC in tag 63)' }),
  format: z.literal('EMVCO_MPM'),
  image_url: z.string(),
  checkout_url: z.string(),
  expires_at: z.number().int().meta({ description: 'Unix seconds' }),
  image: z.string().optional().meta({ description: 'PNG data URL, only when the merchant set inline_qr_image' }),
});
const createResponse = envelope.extend({
  payment_id: z.string(),
  payment_code: z.string(),
  payment_token: z.string(),
  qr_data: qrDataSchema,
  metadata: z.record(z.string(), z.unknown()).nullable(),
});
const statusResponse = envelope.extend({
  payment_id: z.string(),
  merchant_ref_no: z.string(),
  original_currency_code: z.string(),
  original_amount: amountNumber,
  paid_currency_code: z.string(),
  paid_amount: amountNumber,
  product_type: z.string(),
  payment_code: z.string(),
  payment_status: z.enum(['P', 'W', 'E', 'F', 'V', 'A']),
  payment_date: z.number().int().nullable().meta({ description: 'Unix seconds of the payment; null until paid' }),
  payee: z.object({ id: z.string(), name: z.string(), city: z.string(), country_code: z.string(), mcc: z.string() }),
  payer: z.object({ id: z.string(), name: z.string() }).nullable(),
  source: z.object({ type: z.string(), provider: z.string(), account: z.string() }).nullable(),
  fee: z.array(z.object({ type: z.string(), currency_code: z.string(), amount: amountNumber })),
  metadata: z.record(z.string(), z.unknown()).nullable(),
});
const errorResponse = envelope.extend({
  errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  payment_id: z.string().optional().meta({ description: 'The existing payment, on a duplicate merchant_ref_no' }),
  string_to_sign: z.string().optional().meta({ description: 'On a signature mismatch: the string the sandbox signed, salt masked' }),
});

function routeDocs(productTypes: readonly string[]): RouteDoc[] {
  const publicRoutes: RouteDoc[] = [
    { method: 'post', path: '/payments/payment', summary: 'Create a payment (yields an EMVCo QR)', tag: 'Payments', auth: 'key', body: createPaymentSchema(productTypes), response: createResponse, codes: [200, 400, 401, 402, 413, 415, 429, 500, 503, 504] },
    { method: 'post', path: '/payments/payment/{payment_id}/assign', summary: 'Assign a payer (P or W to W)', tag: 'Payments', auth: 'key', body: assignSchema, codes: [200, 400, 401, 402, 404, 429] },
    { method: 'post', path: '/payments/payment/{payment_id}/cancel', summary: 'Cancel before payment (P or W to V)', tag: 'Payments', auth: 'key', body: reasonSchema, codes: [200, 400, 401, 402, 404, 429] },
    { method: 'post', path: '/payments/payment/{payment_id}/void', summary: 'Void a paid payment before settlement (A to V)', tag: 'Payments', auth: 'key', body: reasonSchema, codes: [200, 400, 401, 402, 404, 429] },
    { method: 'get', path: '/payments/payment/{payment_id}', summary: 'Check payment status', tag: 'Payments', auth: 'key', response: statusResponse, codes: [200, 401, 404, 429] },
  ];
  const sandbox = (method: RouteDoc['method'], p: string, summary: string, extra: Partial<RouteDoc> = {}): RouteDoc => ({
    method,
    path: `/sandbox/v1${p}`,
    summary,
    tag: 'Sandbox control',
    auth: 'key',
    codes: [200, 400, 401, 402, 404, 429],
    ...extra,
  });
  return [
    ...publicRoutes.map((r) => ({ ...r, path: `/openapi/v1${r.path}` })),
    ...publicRoutes.map((r) => ({ ...r, path: `/v1${r.path}`, tag: 'Payments (alias)' as const, summary: `${r.summary} (alias without /openapi)` })),
    sandbox('post', '/merchants', 'Enroll a merchant (returns api_key, payee_id, signing_salt)', { auth: 'admin', body: enrollSchema, bodyOptional: true }),
    sandbox('get', '/merchant', "The key's own merchant: payee id and settings (never keys or salt)"),
    sandbox('post', '/payments/{payment_id}/pickup', 'Force pickup: P to W with a generated or given payer', { body: pickupSchema, bodyOptional: true }),
    sandbox('post', '/payments/{payment_id}/pay', 'Force payment: P or W to A', { body: paySchema, bodyOptional: true }),
    sandbox('post', '/payments/{payment_id}/fail', 'Force failure: P or W to F', { body: failSchema, bodyOptional: true }),
    sandbox('post', '/payments/{payment_id}/expire', 'Force expiry: P or W to E', { body: emptySchema, bodyOptional: true }),
    sandbox('post', '/payments/{payment_id}/settle', 'Settle a paid payment', { body: emptySchema, bodyOptional: true }),
    sandbox('post', '/settle', 'Settle every paid, unsettled payment', { body: emptySchema, bodyOptional: true }),
    sandbox('get', '/payments', 'List payments, newest first', { query: listQuerySchema }),
    sandbox('get', '/payments/{payment_id}', 'A payment with sandbox-only fields (settled, token, qr_data)'),
    sandbox('get', '/payments/{payment_id}/events', 'The history of a payment'),
    sandbox('post', '/reset', "Erase this merchant's payments, journal and fault rules; reset its clock", { body: emptySchema, bodyOptional: true }),
    sandbox('get', '/clock', "The merchant's sandbox time"),
    sandbox('post', '/clock/advance', 'Move the clock forward and run what falls due', { body: advanceClockSchema }),
    sandbox('get', '/faults', 'List fault rules'),
    sandbox('post', '/faults', 'Add a fault rule', { body: faultRuleSchema }),
    sandbox('delete', '/faults', 'Delete every fault rule'),
    sandbox('delete', '/faults/{rule_id}', 'Delete one fault rule'),
    sandbox('get', '/requests', 'The request journal, newest first', { query: journalQuerySchema }),
    sandbox('delete', '/requests', 'Empty the request journal'),
    sandbox('get', '/webhook', 'The webhook URL'),
    sandbox('put', '/webhook', 'Set or clear (null) the webhook URL', { body: webhookSchema }),
    sandbox('get', '/webhook/deliveries', 'Webhook deliveries, newest first, with their attempts', { query: deliveriesQuerySchema }),
    sandbox('post', '/webhook/deliveries/{delivery_id}/replay', 'Send a delivery again'),
    sandbox('post', '/tools/sign', 'Compute the signature of a create body', { tag: 'Sandbox tools', body: z.object({}).catchall(z.unknown()) }),
    sandbox('get', '/codes', 'Every code the sandbox answers', { tag: 'Sandbox tools', auth: 'none', codes: [200] }),
    sandbox('get', '/magic', 'Every magic value', { tag: 'Sandbox tools', auth: 'none', codes: [200] }),
    sandbox('get', '/qr/{payment_token}', 'The QR image of a payment (PNG, or SVG with ?format=svg), cached with an ETag', {
      tag: 'Sandbox tools',
      auth: 'none',
      codes: [200, 304, 400, 404],
      produces: 'image/png',
      query: z.object({ format: z.enum(['png', 'svg']).optional() }),
    }),
    { method: 'get', path: '/sandbox', summary: 'Dashboard (HTML)', tag: 'Pages', auth: 'none', codes: [200], produces: 'text/html' },
    { method: 'get', path: '/sandbox/pay/{payment_token}', summary: 'Payer page (HTML)', tag: 'Pages', auth: 'none', codes: [200, 404], produces: 'text/html' },
    { method: 'post', path: '/sandbox/pay/{payment_token}/pay', summary: 'Payer page: pay (form post, redirects)', tag: 'Pages', auth: 'none', codes: [303, 404], produces: 'text/html' },
    { method: 'post', path: '/sandbox/pay/{payment_token}/decline', summary: 'Payer page: decline (form post, redirects)', tag: 'Pages', auth: 'none', codes: [303, 404], produces: 'text/html' },
    { method: 'get', path: '/healthz', summary: 'Liveness and store readiness', tag: 'Service', auth: 'none', codes: [200, 503] },
    { method: 'get', path: '/metrics', summary: 'Prometheus metrics (SANDBOX_METRICS=off turns them off)', tag: 'Service', auth: 'none', codes: [200, 404], produces: 'text/plain' },
    { method: 'get', path: '/openapi.json', summary: 'This document', tag: 'Service', auth: 'none', codes: [200] },
    { method: 'get', path: '/docs', summary: 'Reference page (works offline)', tag: 'Service', auth: 'none', codes: [200], produces: 'text/html' },
  ];
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

const MEANING = new Map<number, string>(CODE_CATALOGUE.map((c) => [c.code, c.meaning]));
MEANING.set(303, 'Redirect back to the page');
MEANING.set(304, 'Not modified (ETag matched)');

function openApiDocument(productTypes: readonly string[], serverUrl?: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routeDocs(productTypes)) {
    const parameters: Record<string, unknown>[] = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    if (route.query) {
      const props = (jsonSchema(route.query, 'input').properties ?? {}) as Record<string, unknown>;
      for (const [name, schema] of Object.entries(props)) parameters.push({ name, in: 'query', required: false, schema });
    }
    const responses: Record<string, unknown> = {};
    for (const code of route.codes) {
      const schema = code === 200 ? (route.response ?? envelope.catchall(z.unknown())) : errorResponse;
      responses[String(code)] =
        route.produces && code === 200
          ? { description: MEANING.get(code) ?? String(code), content: { [route.produces]: {} } }
          : code === 303 || code === 304
            ? { description: MEANING.get(code) }
            : { description: MEANING.get(code) ?? String(code), content: { 'application/json': { schema: jsonSchema(schema, 'output') } } };
    }
    const operation: Record<string, unknown> = {
      summary: route.summary,
      tags: [route.tag],
      operationId: `${route.method}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, ch: string | undefined) => (ch ? ch.toUpperCase() : ''))}`,
      security: route.auth === 'key' ? [{ ServiceApiKey: [] }] : route.auth === 'admin' ? [{}, { AdminToken: [] }] : [],
      ...(parameters.length ? { parameters } : {}),
      ...(route.body
        ? { requestBody: { required: !route.bodyOptional, content: { 'application/json': { schema: jsonSchema(route.body, 'input') } } } }
        : {}),
      responses,
    };
    (paths[route.path] ??= {})[route.method] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'payreq-sandbox',
      version: '1.0.0',
      description:
        'The payment request service as simulated by payreq-sandbox: the public API under /openapi/v1 (also served under /v1), sandbox-only routes under /sandbox/v1. Every JSON answer carries a numeric code and a description; by default the HTTP status equals code.',
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    components: {
      securitySchemes: {
        ServiceApiKey: { type: 'apiKey', in: 'header', name: 'Service-Api-Key' },
        AdminToken: { type: 'http', scheme: 'bearer', description: 'Only when the sandbox runs with SANDBOX_ADMIN_TOKEN' },
      },
    },
    paths,
  };
}

const require = createRequire(import.meta.url);
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=UTF-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=UTF-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=UTF-8',
};
const assetCache = new Map<string, Buffer>();

function asset(name: string): Buffer {
  let body = assetCache.get(name);
  if (!body) {
    body = readFileSync(path.join(path.dirname(require.resolve('swagger-ui-dist/package.json')), name));
    assetCache.set(name, body);
  }
  return body;
}

const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>payreq-sandbox API reference</title><link rel="stylesheet" href="docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div><script src="docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: 'openapi.json', dom_id: '#ui', deepLinking: true });</script></body></html>`;

export function openApiRoutes(productTypes: readonly string[]): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  let cached: string | undefined;
  routes.get('/openapi.json', (c) => {
    const base = c.get('services').config.publicBaseUrl;
    cached ??= JSON.stringify(openApiDocument(productTypes, base));
    return c.body(cached, 200, { 'Content-Type': 'application/json; charset=UTF-8' });
  });
  routes.get('/docs', (c) => c.html(DOCS_PAGE));
  routes.get('/docs/assets/:file', (c) => {
    const file = c.req.param('file');
    // Own keys only: the map's inherited ones (constructor, toString, ...) are no assets.
    const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (!type) return c.notFound();
    return c.body(new Uint8Array(asset(file)), 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' });
  });
  return routes;
}
