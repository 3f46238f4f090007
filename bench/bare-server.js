#!/usr/bin/env node
/**
 * The framework's own ceiling: bare Hono on @hono/node-server, no middleware, nothing else.
 * GET /json answers a ~600-byte JSON object; POST /json parses a ~200-byte JSON body.
 * GET /png answers a QR PNG made once at start with the sandbox's options (~3.3 KB): the same
 * kind of bytes as a cached sandbox QR image, to tell the server's cost from the client's.
 * GET and POST /logged are the floor of the file store's design (SPEC 23) with no other feature:
 * the GET appends a journal line (its answer included) at the turn's end; the POST parses the body,
 * draws the ids, writes the change's line synchronously before answering (~700 B, like a create's
 * answer), and its journal line at the turn's end. No auth, validation, index, evidence, log or metrics.
 * Usage: node bench/bare-server.js --port <p> [--host 127.0.0.1] [--log <file>]
 */
import { randomBytes } from 'node:crypto';
import { openSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import QRCode from 'qrcode';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : process.argv[i + 1];
};

/** About 600 bytes once serialised, shaped like a payment status answer. */
const DOCUMENT = {
  code: 200,
  description: 'Payment pay_0123456789abcdefghijkl is P (pending: waiting for the customer to pick it up).',
  payment_id: 'pay_0123456789abcdefghijkl',
  merchant_ref_no: 'order-000123456',
  original_currency_code: 'SGD',
  original_amount: 10.5,
  paid_currency_code: 'SGD',
  paid_amount: 10.5,
  product_type: 'QR_DYNAMIC',
  payment_code: 'ABCDEFGH1234',
  payment_status: 'P',
  payment_date: null,
  payee: { id: 'DEMO-MERCHANT-1', name: 'Kopi Corner Pte Ltd', city: 'Singapore', country_code: 'SG', mcc: '5812' },
  payer: null,
  source: null,
  fee: [],
  metadata: { order: 'A-1001', channel: 'web', note: 'bench' },
};

const app = new Hono();
app.get('/healthz', (c) => c.json({ code: 200, description: 'ok' }));
app.get('/json', (c) => c.json(DOCUMENT));
app.post('/json', async (c) => {
  const body = await c.req.json();
  return c.json({ code: 200, description: 'parsed', fields: Object.keys(body).length });
});

// A payload of the sandbox's shape (EMVCo MPM), rendered as the sandbox renders PNGs.
const PNG = await QRCode.toBuffer(
  '00020101021226410018COM.PAYREQ.SANDBOX0115DEMO-MERCHANT-1520458125303702540510.505802SG5917Bahringer - Bosco6010Casperfort621605121AX35YJN524W6304307C',
  { errorCorrectionLevel: 'M', margin: 2, type: 'png', scale: 6 },
);
app.get('/png', () => new Response(PNG, { status: 200, headers: { 'Content-Type': 'image/png', 'Cache-Control': 'private, max-age=86400, immutable' } }));

const log = openSync(arg('--log', path.join(os.tmpdir(), `payreq-bench-floor-${process.pid}.jsonl`)), 'a');
let turnLines = [];
const journal = (entry) => {
  if (turnLines.length === 0) setImmediate(() => writeSync(log, turnLines.splice(0).join('')));
  turnLines.push(`${JSON.stringify({ t: 'journal', payeeId: DOCUMENT.payee.id, v: { at: Date.now(), ...entry } })}\n`);
};
const id = (prefix, bytes) => `${prefix}${randomBytes(bytes).toString('base64url')}`;

app.get('/logged', (c) => {
  const text = JSON.stringify(DOCUMENT);
  journal({ method: 'GET', path: c.req.path, status: 200, responseBody: text, requestId: id('req_', 12) });
  return c.body(text, 200, { 'Content-Type': 'application/json' });
});
app.post('/logged', async (c) => {
  const requestBody = await c.req.text();
  const body = JSON.parse(requestBody);
  const payment = { id: id('pay_', 16), token: id('ptok_', 24), payeeId: body.payee, merchantRefNo: body.merchant_ref_no, currency: body.currency_code, amount: body.amount, status: 'P', metadata: JSON.stringify(body.metadata), createdAt: Date.now(), history: [{ type: 'created', to: 'P', at: Date.now() }], version: 1 };
  writeSync(log, `${JSON.stringify({ t: 'payment', v: payment })}\n`);
  const text = JSON.stringify({ code: 200, description: 'Payment created with status P (pending: waiting for the customer to pick it up); show qr_data to the payer.', payment_id: payment.id, payment_token: payment.token, qr_data: { payload: '0002010102122641'.padEnd(150, '0'), format: 'EMVCO_MPM', image_url: `http://127.0.0.1/sandbox/v1/qr/${payment.token}`, checkout_url: `http://127.0.0.1/sandbox/pay/${payment.token}`, expires_at: payment.createdAt }, metadata: body.metadata });
  journal({ method: 'POST', path: c.req.path, status: 200, requestBody, responseBody: text, requestId: id('req_', 12) });
  return c.body(text, 200, { 'Content-Type': 'application/json' });
});

export const BARE_DOCUMENT_BYTES = Buffer.byteLength(JSON.stringify(DOCUMENT));

const port = Number(arg('--port', '0'));
const hostname = arg('--host', '127.0.0.1');
const server = serve({ fetch: app.fetch, port, hostname }, (info) => console.log(`bare hono listening on http://${hostname}:${info.port}`));
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
