import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createBody, DEMO_KEY, jsonRequest } from '../helpers.js';
import { listeningSandbox } from '../support/http.js';

/** Sends a raw HTTP/1.1 request and answers the status line and body, as curl -X POST with no -d does. */
function rawRequest(port: number, head: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('end', () => {
      const [headers = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(headers.split(' ')[1]), body });
    });
    socket.on('error', reject);
  });
}

describe('a POST with no body at all over a real socket', () => {
  const live = listeningSandbox();

  it('is an empty body for control routes whose fields are all optional (curl -X POST .../pickup)', async () => {
    const created = await live.sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody()));
    const id = ((await created.json()) as { payment_id: string }).payment_id;
    const answer = await rawRequest(live.server.port, `POST /sandbox/v1/payments/${id}/pickup HTTP/1.1\r\nHost: x\r\nService-Api-Key: ${DEMO_KEY}\r\nConnection: close\r\n\r\n`);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('"payment_status":"W"');
  });

  it('is a 400 naming the missing body where one is required', async () => {
    const answer = await rawRequest(live.server.port, `POST /openapi/v1/payments/payment HTTP/1.1\r\nHost: x\r\nService-Api-Key: ${DEMO_KEY}\r\nConnection: close\r\n\r\n`);
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('A JSON object body is required');
  });
});
