/** The parts of src/server/odd-requests.ts that need no socket; each odd request over a real one is in test/e2e/odd-http.error.test.ts. */
import { RequestError } from '@hono/node-server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answerRequestError, methodsServed } from '../../src/server/odd-requests.js';

afterEach(() => {
  vi.restoreAllMocks();
});

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
    const res = answerRequestError(new RequestError(message));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    expect(await res.json()).toEqual({ code: 400, description: expect.stringMatching(description) });
  });

  it('anything else is a 500 that names no internals (the cause goes to the server log)', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const res = answerRequestError(new TypeError('secret internals at /src/x.ts:1'));
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toMatch(/TypeError|secret|src/);
    expect(JSON.parse(text)).toMatchObject({ code: 500 });
    expect(logged).toHaveBeenCalled();
  });
});
