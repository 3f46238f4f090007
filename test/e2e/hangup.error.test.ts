import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY, jsonRequest } from '../helpers.js';
import { listeningSandbox } from '../support/http.js';
import { capturedLog } from '../support/log.js';

describe('a client that hangs up mid-body', () => {
  const captured = capturedLog();
  const live = listeningSandbox({ log: captured.log });

  it('is not logged as an internal error, changes nothing, and the journal shows a 400', async () => {
    await new Promise<void>((resolve, reject) => {
      const socket = connect(live.server.port, '127.0.0.1', () => {
        socket.write(
          'POST /openapi/v1/payments/payment HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
            `Service-Api-Key: ${DEMO_KEY}\r\nContent-Length: 1000\r\n\r\n{"payee":"DEMO-`,
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
      socket.on('error', reject);
    });
    let entry: { status: number; code: number } | undefined;
    for (let i = 0; i < 100 && !entry; i++) {
      await new Promise((r) => setTimeout(r, 10));
      const journal = (await (await live.sandbox.fetch(jsonRequest('GET', '/sandbox/v1/requests?method=POST'))).json()) as { requests: { status: number; code: number }[] };
      entry = journal.requests[0];
    }
    expect(entry).toMatchObject({ status: 400, code: 400 });
    // Its request line only: no error line for the operator.
    expect(captured.events()).toEqual([]);
    expect((await captured.requestLines()).map((l) => l.status)).toContain(400);
    const list = (await (await live.sandbox.fetch(jsonRequest('GET', '/sandbox/v1/payments'))).json()) as { total: number };
    expect(list.total).toBe(0);
  });

  it('a very long unknown id is not echoed whole in the 404 description', async () => {
    const id = `pay_${'x'.repeat(2000)}`;
    const json = (await (await live.sandbox.fetch(jsonRequest('GET', `/openapi/v1/payments/payment/${id}`))).json()) as { code: number; description: string };
    expect(json.code).toBe(404);
    expect(json.description.length).toBeLessThan(300);
  });

  it('an empty merchant_ref_no filter is a 400, not "every payment"', async () => {
    const res = await live.sandbox.fetch(jsonRequest('GET', '/sandbox/v1/payments?merchant_ref_no='));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { description: string }).description).toMatch(/merchant_ref_no must not be empty/);
  });
});
