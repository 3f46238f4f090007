/** Bad input over a real socket: real Content-Length, chunked bodies, broken HTTP. The server answers and stays up. */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY, createBody, expectEnvelope, listeningSandbox, toAnswer } from '../support/http.js';

const live = listeningSandbox({ scheduler: false });

const headers = { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' };

async function paymentCount(): Promise<number> {
  const answer = await toAnswer(await fetch(`${live.server.url}/sandbox/v1/payments`, { headers }));
  return answer.body.total as number;
}

function chunks(parts: readonly string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < parts.length) controller.enqueue(encoder.encode(parts[i++]));
      else controller.close();
    },
  });
}

/** Writes raw bytes to the server and collects whatever it answers until it closes or goes quiet. */
function raw(text: string, { end = true, quietMs = 300 } = {}): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(live.server.port, '127.0.0.1');
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(received);
    };
    socket.on('data', (d) => {
      received += d.toString('utf8');
      clearTimeout(timer);
      timer = setTimeout(finish, quietMs);
    });
    socket.on('close', finish);
    socket.on('error', finish);
    socket.write(text, () => {
      if (end) socket.end();
      timer = setTimeout(finish, quietMs * 3);
    });
  });
}

describe('bodies over a real connection', () => {
  it('a body over 64 KiB with its Content-Length is 413, nothing stored', async () => {
    const before = await paymentCount();
    const body = JSON.stringify({ ...createBody(), pad: 'x'.repeat(70 * 1024) });
    const answer = await toAnswer(await fetch(`${live.server.url}/openapi/v1/payments/payment`, { method: 'POST', headers, body }));
    expectEnvelope(answer, 413);
    expect(await paymentCount()).toBe(before);
  });

  it('a chunked body over 64 KiB (no Content-Length) is 413, nothing stored', async () => {
    const before = await paymentCount();
    const start = JSON.stringify(createBody()).slice(0, -1);
    const parts = [`${start},"pad":"`, ...Array.from({ length: 80 }, () => 'y'.repeat(1024)), '"}'];
    const response = await fetch(`${live.server.url}/openapi/v1/payments/payment`, { method: 'POST', headers, body: chunks(parts), duplex: 'half' } as RequestInit);
    expectEnvelope(await toAnswer(response), 413);
    expect(await paymentCount()).toBe(before);
  });

  it('a small chunked body is read and accepted', async () => {
    const text = JSON.stringify(createBody({ merchant_ref_no: 'chunked-ok' }));
    const parts = [text.slice(0, 10), text.slice(10, 30), text.slice(30)];
    const response = await fetch(`${live.server.url}/openapi/v1/payments/payment`, { method: 'POST', headers, body: chunks(parts), duplex: 'half' } as RequestInit);
    expectEnvelope(await toAnswer(response), 200);
  });

  it('a declared Content-Length over 64 KiB is refused with 413 before the body is read', async () => {
    const before = await paymentCount();
    const reply = await raw(
      `POST /openapi/v1/payments/payment HTTP/1.1\r\nHost: x\r\nService-Api-Key: ${DEMO_KEY}\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n{"payee":`,
      { end: false },
    );
    expect(reply).toMatch(/^HTTP\/1\.1 413/);
    expect(reply).toContain('"code":413');
    expect(await paymentCount()).toBe(before);
  });

  it.each([
    ['text/plain', JSON.stringify(createBody()), 415],
    ['application/json', '{"payee": "DEMO-MERCHANT-1", "amount": 1', 400],
    ['application/json', '[1,2,3]', 400],
    ['application/json', `{"payee":"DEMO-MERCHANT-1","product_type":"QR_DYNAMIC","merchant_ref_no":"big","amount":1e400}`, 400],
  ])('Content-Type %s with %s answers %s, nothing stored', async (type, body, code) => {
    const before = await paymentCount();
    const response = await fetch(`${live.server.url}/openapi/v1/payments/payment`, { method: 'POST', headers: { ...headers, 'Content-Type': type }, body });
    expectEnvelope(await toAnswer(response), code);
    expect(await paymentCount()).toBe(before);
  });
});

describe('broken HTTP does not take the server down', () => {
  it('a body shorter than its Content-Length, then a hang-up', async () => {
    const before = await paymentCount();
    await raw(`POST /openapi/v1/payments/payment HTTP/1.1\r\nHost: x\r\nService-Api-Key: ${DEMO_KEY}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"payee":"DEMO`);
    expectEnvelope(await toAnswer(await fetch(`${live.server.url}/healthz`)), 200);
    expect(await paymentCount()).toBe(before);
  });

  it('garbage instead of HTTP', async () => {
    await raw('\u0000\u0001 NOT HTTP AT ALL \r\n\r\n');
    expectEnvelope(await toAnswer(await fetch(`${live.server.url}/healthz`)), 200);
  });

  it('a header with a NUL byte', async () => {
    await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\n\r\n`);
    expectEnvelope(await toAnswer(await fetch(`${live.server.url}/healthz`)), 200);
  });

  it('raw path traversal in the request line answers an envelope', async () => {
    const reply = await raw(`GET /openapi/v1/payments/payment/../../../../etc/passwd HTTP/1.1\r\nHost: x\r\nService-Api-Key: ${DEMO_KEY}\r\nConnection: close\r\n\r\n`);
    expect(reply).toMatch(/^HTTP\/1\.1 404/);
    expect(reply).toContain('"code":404');
    expect(reply).not.toContain('root:');
  });
});

describe('auth, routes and methods over HTTP', () => {
  it('no key is 401', async () => {
    expectEnvelope(await toAnswer(await fetch(`${live.server.url}/openapi/v1/payments/payment/pay_x`)), 401);
  });

  it('an unknown route is the 404 envelope', async () => {
    expectEnvelope(await toAnswer(await fetch(`${live.server.url}/definitely/not/here`)), 404);
  });

  it('a wrong method is 405 with Allow', async () => {
    const response = await fetch(`${live.server.url}/openapi/v1/payments/payment`, { method: 'PUT', headers, body: '{}' });
    expect(response.headers.get('allow')).toBe('POST');
    expectEnvelope(await toAnswer(response), 405);
  });
});
