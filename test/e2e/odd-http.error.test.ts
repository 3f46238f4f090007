/**
 * SPEC 18 "Every answer is an envelope": HTTP that is valid but odd (no Host, OPTIONS *, an
 * unknown Expect, CONNECT, a target or Host no URL can be made of) gets {code, description} JSON
 * with a Request-Id and the right status, never Node's empty answer or a silent close; the
 * server serves on and nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer, Sandbox } from '../../src/index.js';
import { listen } from '../../src/server.js';
import { DEMO_KEY, createBody, memorySandbox } from '../helpers.js';
import { rawExchange } from '../support/raw-http.js';
import type { RawReply } from '../support/raw-http.js';

let sandbox: Sandbox;
let server: RunningServer;
beforeAll(async () => {
  sandbox = await memorySandbox();
  server = await listen(sandbox.app, 0, '127.0.0.1');
});
afterAll(async () => {
  await server.close();
  await sandbox.close();
});

const ALLOW = 'DELETE, GET, HEAD, POST, PUT';

function expectEnvelope(reply: RawReply, status: number, description: RegExp): void {
  expect(reply.text, reply.text).toMatch(new RegExp(`^HTTP/1\\.1 ${status} [A-Z]`));
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  expect(reply.headers['request-id']).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
  expect(Number(reply.headers['content-length'])).toBe(Buffer.byteLength(reply.body));
  const body = JSON.parse(reply.body) as { code: number; description: string };
  expect(body).toEqual({ code: status, description: expect.stringMatching(description) });
}

/** The answer is the connection's last, and the server closes it (no hang). */
function expectClosed(reply: RawReply): void {
  expect(reply.headers.connection).toBe('close');
  expect(reply.closed).toBe(true);
}

async function storedWithRef(ref: string): Promise<number> {
  const res = await fetch(`${server.url}/sandbox/v1/payments?merchant_ref_no=${ref}`, { headers: { 'Service-Api-Key': DEMO_KEY } });
  return ((await res.json()) as { total: number }).total;
}

async function expectStillServing(): Promise<void> {
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
}

function create(ref: string, headers: string): string {
  const body = JSON.stringify(createBody({ merchant_ref_no: ref }));
  return `POST /openapi/v1/payments/payment HTTP/1.1\r\n${headers}Service-Api-Key: ${DEMO_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
}

describe('odd HTTP over a raw socket is answered in the envelope', () => {
  it('an HTTP/1.1 request without Host is 400 naming Host, and nothing is stored', async () => {
    const reply = await rawExchange(server.port, create('no-host', ''));
    expectEnvelope(reply, 400, /must carry a Host header/);
    expectClosed(reply);
    expect(await storedWithRef('no-host')).toBe(0);
    await expectStillServing();
  });

  it('an HTTP/1.0 request without Host is still served (Host is optional there)', async () => {
    const reply = await rawExchange(server.port, 'GET /healthz HTTP/1.0\r\n\r\n');
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toMatchObject({ code: 200 });
  });

  it('OPTIONS * is 200 with Allow naming the methods the server answers, and the connection stays open', async () => {
    const reply = await rawExchange(server.port, 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expectEnvelope(reply, 200, /answers the methods DELETE, GET, HEAD, POST, PUT \(see Allow\)/);
    expect(reply.headers.allow).toBe(ALLOW);
    // The next request on the same connection is answered too.
    expect(reply.text.slice(reply.text.indexOf('HTTP/1.1', 10))).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  });

  it('an unknown Expect is 417 naming it (not Node\'s empty 417), and nothing is stored', async () => {
    const reply = await rawExchange(server.port, create('expect', 'Host: x\r\nExpect: tea-and-biscuits\r\n'));
    expectEnvelope(reply, 417, /Expect: "tea-and-biscuits" cannot be met: the only expectation this server knows is 100-continue/);
    expectClosed(reply);
    expect(await storedWithRef('expect')).toBe(0);
    await expectStillServing();
  });

  it('Expect: 100-continue is still met: 100, then the answer', async () => {
    const reply = await rawExchange(server.port, create('continue', 'Host: x\r\nExpect: 100-continue\r\nConnection: close\r\n'));
    expect(reply.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    expect(await storedWithRef('continue')).toBe(1);
  });

  it('CONNECT is 405 with Allow (the sandbox is not a proxy), then the connection is closed', async () => {
    const reply = await rawExchange(server.port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n\u0016\u0003\u0001 tls bytes');
    expectEnvelope(reply, 405, /CONNECT is not allowed: this server is not a proxy/);
    expect(reply.headers.allow).toBe(ALLOW);
    expectClosed(reply);
    await expectStillServing();
  });

  it.each([
    ['a target that is not a path', 'GET * HTTP/1.1\r\nHost: x\r\n\r\n', /Invalid URL/],
    ['a backslash in the path', 'GET /a\\b HTTP/1.1\r\nHost: x\r\n\r\n', /Backslash in request path/],
    ['a Host with a space', 'GET /healthz HTTP/1.1\r\nHost: a b\r\n\r\n', /Host/],
  ])('%s is 400 in the envelope (not the adapter\'s empty 400)', async (_name, text, description) => {
    const reply = await rawExchange(server.port, text);
    expectEnvelope(reply, 400, description);
    await expectStillServing();
  });
});
