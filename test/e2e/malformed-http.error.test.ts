/**
 * Defect 11: malformed HTTP gets an answer in the JSON envelope where the protocol allows one
 * (400, 408, 431 with Connection: close), never a silent close, and the server serves on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer, Sandbox } from '../../src/index.js';
import { listen } from '../../src/server.js';
import { DEMO_KEY, createBody, memorySandbox } from '../helpers.js';
import { capturedLog } from '../support/log.js';
import { rawExchange } from '../support/raw-http.js';
import type { RawReply } from '../support/raw-http.js';

let sandbox: Sandbox;
let server: RunningServer;
const captured = capturedLog();
beforeAll(async () => {
  sandbox = await memorySandbox({ log: captured.log });
  // Short timeouts so the 408s come quickly; the defaults are checked in slow-clients.error.test.ts.
  server = await listen(sandbox.app, 0, '127.0.0.1', { headersTimeoutMs: 1000, requestTimeoutMs: 1500 }, sandbox.services.logger);
});
afterAll(async () => {
  await server.close();
  await sandbox.close();
});

const create = (ref: string, extra = '') => {
  const body = JSON.stringify(createBody({ merchant_ref_no: ref }));
  return { body, head: `POST /openapi/v1/payments/payment HTTP/1.1\r\nHost: x\r\nService-Api-Key: ${DEMO_KEY}\r\nContent-Type: application/json\r\n${extra}` };
};

async function storedWithRef(ref: string): Promise<number> {
  const res = await fetch(`${server.url}/sandbox/v1/payments?merchant_ref_no=${ref}`, { headers: { 'Service-Api-Key': DEMO_KEY } });
  return ((await res.json()) as { total: number }).total;
}

function expectRawEnvelope(reply: RawReply, status: number, description: RegExp): void {
  expect(reply.text, reply.text).toMatch(new RegExp(`^HTTP/1\\.1 ${status} [A-Z]`));
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  expect(reply.headers.connection).toBe('close');
  expect(Number(reply.headers['content-length'])).toBe(Buffer.byteLength(reply.body));
  // Answered before the app, yet with a Request-Id like every other answer.
  expect(reply.headers['request-id']).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
  const body = JSON.parse(reply.body) as { code: number; description: string };
  expect(body.code).toBe(status);
  expect(body.description).toMatch(description);
  // One answer, then the server closes the connection.
  expect(reply.text.length).toBe(reply.text.indexOf('\r\n\r\n') + 4 + Buffer.byteLength(reply.body));
  expect(reply.closed).toBe(true);
}

async function expectStillServing(): Promise<void> {
  const health = await fetch(`${server.url}/healthz`);
  expect(health.status).toBe(200);
  const created = await fetch(`${server.url}/openapi/v1/payments/payment`, {
    method: 'POST',
    headers: { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify(createBody()),
  });
  expect(created.status).toBe(200);
}

describe('malformed HTTP over a raw socket', () => {
  it('a 20 KB header is 431 in the envelope', async () => {
    const reply = await rawExchange(server.port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`);
    expectRawEnvelope(reply, 431, /headers are over the limit of 16 KiB/);
    await expectStillServing();
  });

  it('a 1 MB header is 431 too (the rest is read and dropped, not answered with a reset)', async () => {
    const reply = await rawExchange(server.port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(1024 * 1024)}\r\n\r\n`);
    expectRawEnvelope(reply, 431, /16 KiB/);
    await expectStillServing();
  });

  it('Content-Length together with Transfer-Encoding: chunked is 400, nothing stored', async () => {
    const { body, head } = create('cl-te', `Content-Length: 5\r\nTransfer-Encoding: chunked\r\n`);
    const reply = await rawExchange(server.port, `${head}\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`);
    expectRawEnvelope(reply, 400, /sent with (Transfer-Encoding|Content-Length)/);
    expect(await storedWithRef('cl-te')).toBe(0);
    await expectStillServing();
  });

  it.each([
    ['bytes that are not HTTP', '\u0000\u0001 NOT HTTP AT ALL \r\n\r\n'],
    ['an unknown HTTP version', 'GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n'],
    ['a space in the path', 'GET /a b HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a lower-case method', 'get /healthz HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a TLS ClientHello on the plain port', '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003'],
  ])('%s is 400', async (_name, text) => {
    const reply = await rawExchange(server.port, text);
    expectRawEnvelope(reply, 400, /not an HTTP\/1\.1 request line|not valid HTTP\/1\.1/);
    await expectStillServing();
  });

  it.each([
    ['a NUL byte in a header value', 'X-Bad: a\u0000b', /HPE_INVALID_HEADER_TOKEN/],
    ['a header line without a colon', 'Host x', /not "Name: value"/],
    ['a Content-Length that is not a number', 'Content-Length: abc', /Content-Length header is not a single whole number/],
    ['Content-Length sent twice', 'Content-Length: 0\r\nContent-Length: 0', /Content-Length was sent more than once/],
    ['Content-Length with Transfer-Encoding', 'Transfer-Encoding: chunked\r\nContent-Length: 0', /sent with Transfer-Encoding/],
  ])('%s is 400', async (_name, line, description) => {
    const reply = await rawExchange(server.port, `GET /healthz HTTP/1.1\r\nHost: x\r\n${line}\r\n\r\n`);
    expectRawEnvelope(reply, 400, description);
    await expectStillServing();
  });

  it('a body shorter than its Content-Length, then the client ends its side: 400, nothing stored', async () => {
    const { body, head } = create('short-then-end');
    const reply = await rawExchange(server.port, `${head}Content-Length: ${body.length + 100}\r\n\r\n${body}`, { end: true });
    expectRawEnvelope(reply, 400, /closed before the whole request arrived/);
    expect(await storedWithRef('short-then-end')).toBe(0);
    // Not an internal error: no line for the operator.
    expect(captured.events()).toEqual([]);
    await expectStillServing();
  });

  it('a body shorter than its Content-Length, then silence: 408 once the request timeout passes, nothing stored', async () => {
    const { body, head } = create('short-then-quiet');
    const started = Date.now();
    const reply = await rawExchange(server.port, `${head}Content-Length: ${body.length + 100}\r\n\r\n${body}`, { waitMs: 5000 });
    expectRawEnvelope(reply, 408, /did not arrive in time.*whole request within 1\.5 s/);
    expect(Date.now() - started).toBeLessThan(3500);
    expect(await storedWithRef('short-then-quiet')).toBe(0);
    await expectStillServing();
  });

  it('headers that never end: 408 once the headers timeout passes', async () => {
    const started = Date.now();
    const reply = await rawExchange(server.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ', { waitMs: 5000 });
    expectRawEnvelope(reply, 408, /headers within 1 s/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('a connection that sends nothing is closed at the headers timeout, without an answer', async () => {
    const reply = await rawExchange(server.port, '', { waitMs: 5000 });
    expect(reply.closed).toBe(true);
    expect(reply.text).toBe('');
  });

  it('a broken request after a good one on a keep-alive connection: the first answered 200, the second 400', async () => {
    const reply = await rawExchange(server.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE!! / HTTP/1.1\r\n\r\n');
    expect(reply.status).toBe(200);
    const second = reply.text.slice(reply.text.indexOf('HTTP/1.1', 10));
    expect(second).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(second).toContain('"code":400');
  });
});
