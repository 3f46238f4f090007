/** The raw envelope answers of src/server/malformed-http.ts; each client error over a real socket is in test/e2e/malformed-http.error.test.ts. */
import { describe, expect, it } from 'vitest';
import { protocolAnswer, rawEnvelope } from '../../src/server/malformed-http.js';
import { parseReply } from '../support/raw-http.js';

const LIMITS = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 };

describe('rawEnvelope', () => {
  it('writes one complete HTTP/1.1 answer: the envelope, its length, a Request-Id, extra headers, Connection: close', () => {
    const answer = rawEnvelope(405, 'CONNECT is not allowed.', { Allow: 'GET, HEAD' });
    const reply = parseReply(answer.text, true);
    expect(reply.status).toBe(405);
    expect(answer.text).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(reply.headers).toMatchObject({ 'content-type': 'application/json; charset=UTF-8', allow: 'GET, HEAD', connection: 'close', 'request-id': answer.requestId });
    expect(Number(reply.headers['content-length'])).toBe(Buffer.byteLength(reply.body));
    expect(JSON.parse(reply.body)).toEqual({ code: 405, description: 'CONNECT is not allowed.' });
    expect(answer.text.endsWith(reply.body)).toBe(true);
  });

  it('every answer has its own Request-Id', () => {
    expect(rawEnvelope(400, 'x').requestId).not.toBe(rawEnvelope(400, 'x').requestId);
  });
});

describe('protocolAnswer', () => {
  it.each([
    ['HPE_HEADER_OVERFLOW', 431, /16 KiB/],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, /headers within 10 s, the whole request within 30 s/],
    ['HPE_INVALID_METHOD', 400, /not an HTTP\/1\.1 request line/],
    ['HPE_SOMETHING_NEW', 400, /not valid HTTP\/1\.1 \(HPE_SOMETHING_NEW\)/],
  ])('%s is %i in the envelope', (code, status, description) => {
    const answer = protocolAnswer(code, LIMITS)!;
    expect(answer.status).toBe(status);
    expect(JSON.parse(parseReply(answer.text, true).body)).toEqual({ code: status, description: expect.stringMatching(description) });
  });

  it('a client that has gone (ECONNRESET, no code) gets no answer', () => {
    expect(protocolAnswer('ECONNRESET', LIMITS)).toBeUndefined();
    expect(protocolAnswer(undefined, LIMITS)).toBeUndefined();
  });
});
