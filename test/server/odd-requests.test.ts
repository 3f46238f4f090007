/** The parts of src/server/odd-requests.ts that need no socket, and two Host headers over a real one; the other odd requests over a real one are in test/e2e/odd-http.error.test.ts. */
import { RequestError } from '@hono/node-server';
import { describe, expect, it } from 'vitest';
import { listen } from '../../src/server.js';
import { answerRequestError, methodsServed } from '../../src/server/odd-requests.js';
import { memorySandbox } from '../helpers.js';
import { capturedLog, LEVEL } from '../support/log.js';
import { rawExchange } from '../support/raw-http.js';

describe('methodsServed', () => {
  it('lists each method a route serves once, sorted, HEAD with GET, never the middleware ALL', () => {
    expect(methodsServed([{ method: 'ALL' }, { method: 'POST' }, { method: 'GET' }, { method: 'POST' }, { method: 'DELETE' }])).toBe('DELETE, GET, HEAD, POST');
    expect(methodsServed([{ method: 'POST' }])).toBe('POST');
  });
});

describe('answerRequestError', () => {
  it.each([
    ['Missing host header', /must carry a Host header/],
    ['Invalid host header', /The Host header is not a host name/],
    ['Invalid URL', /do not make a URL the sandbox serves \(Invalid URL\)/],
  ])('the adapter\'s "%s" is a 400 envelope with a Request-Id', async (message, description) => {
    const captured = capturedLog();
    const res = answerRequestError(new RequestError(message), captured.log);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    expect(await res.json()).toEqual({ code: 400, description: expect.stringMatching(description) });
    // A client's bad request is not the operator's problem.
    expect(captured.lines).toEqual([]);
  });

  it('anything else is a 500 that names no internals; the cause is one error line, its stack only at debug', async () => {
    const captured = capturedLog();
    const err = new TypeError('secret internals at /src/x.ts:1');
    const res = answerRequestError(err, captured.log);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toMatch(/TypeError|secret|src/);
    expect(JSON.parse(text)).toMatchObject({ code: 500 });
    const requestId = res.headers.get('request-id');
    expect(captured.lines).toEqual([
      { level: LEVEL.error, time: expect.any(Number), request_id: requestId, err: 'secret internals at /src/x.ts:1', type: 'TypeError', msg: 'internal error before the app' },
    ]);
    expect(captured.text()).not.toContain(err.stack!.split('\n')[1]!.trim());

    const debug = capturedLog('debug');
    answerRequestError(err, debug.log);
    expect(debug.lines[1]).toEqual({ level: LEVEL.debug, time: expect.any(Number), request_id: expect.stringMatching(/^req_/), stack: err.stack, msg: 'internal error before the app: its stack' });
  });
});

describe('two Host headers', () => {
  it('answer 400 in the envelope over a real socket, with Connection: close; one Host (any case) is served', async () => {
    const sandbox = await memorySandbox();
    const server = await listen(sandbox.app, 0, '127.0.0.1');
    try {
      for (const hosts of ['Host: a\r\nHost: b', 'Host: a\r\nhOsT: a', 'host: x\r\nX-Other: 1\r\nHOST: y']) {
        const reply = await rawExchange(server.port, `GET /healthz HTTP/1.1\r\n${hosts}\r\n\r\n`);
        expect(reply.status, hosts).toBe(400);
        expect(reply.headers['content-type']).toMatch(/^application\/json/);
        expect(reply.headers.connection).toBe('close');
        expect(JSON.parse(reply.body)).toEqual({ code: 400, description: 'The request carries more than one Host header: send exactly one, "Host: <the host and port you connect to>"; nothing was done.' });
      }
      const one = await rawExchange(server.port, 'GET /healthz HTTP/1.1\r\nhOsT: a\r\nConnection: close\r\n\r\n');
      expect(one.status).toBe(200);
    } finally {
      await server.close();
      await sandbox.close();
    }
  });
});
