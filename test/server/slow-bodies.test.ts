/** When a body has fallen behind the minimum rate (src/server/slow-bodies.ts), on stand-in sockets; over real ones in test/e2e/slow-clients.shares.error.test.ts. */
import type { Socket } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Connection } from '../../src/server/connection-caps.js';
import { BODY_GRACE_MS, bodyTooSlow } from '../../src/server/slow-bodies.js';

const limits = { bodyMinBytesPerSecond: 1000, requestTimeoutMs: 30_000 };

/** A connection whose request was dispatched at 0 with 100 bytes read, now at `bytesRead`. */
function upload(bytesRead: number, { length = '5000', complete = false, headersSent = false, unread = 0 } = {}) {
  const req = { complete, readableLength: unread, headers: length === '' ? {} : { 'content-length': length } } as unknown as IncomingMessage;
  const res = { headersSent } as unknown as ServerResponse;
  const connection: Connection = { client: 'a', busy: 1, current: { req, res, at: 0, bytesRead: 100 } };
  return [{ bytesRead: 100 + bytesRead } as Socket, connection] as const;
}

describe('bodyTooSlow', () => {
  it('the grace is free; then the body must keep up with the rate on average', () => {
    expect(bodyTooSlow(...upload(0), limits, BODY_GRACE_MS)).toBe(false);
    expect(bodyTooSlow(...upload(999), limits, BODY_GRACE_MS + 1000)).toBe(true);
    expect(bodyTooSlow(...upload(1000), limits, BODY_GRACE_MS + 1000)).toBe(false);
  });

  it('no more than the announced length is due; a chunked body (no length) owes the rate all along', () => {
    expect(bodyTooSlow(...upload(10, { length: '10' }), limits, BODY_GRACE_MS + 60_000 - 1)).toBe(false);
    expect(bodyTooSlow(...upload(9, { length: '10' }), limits, BODY_GRACE_MS + 100)).toBe(true);
    expect(bodyTooSlow(...upload(4000, { length: '' }), limits, BODY_GRACE_MS + 5000)).toBe(true);
  });

  it('a body read in full, a request already answered, bytes the app has not read yet, and a request past the request timeout are not judged', () => {
    const late = BODY_GRACE_MS + 10_000;
    expect(bodyTooSlow(...upload(0, { complete: true }), limits, late)).toBe(false);
    expect(bodyTooSlow(...upload(0, { headersSent: true }), limits, late)).toBe(false);
    expect(bodyTooSlow(...upload(0, { unread: 1 }), limits, late)).toBe(false);
    expect(bodyTooSlow(...upload(0), { ...limits, requestTimeoutMs: late }, late)).toBe(false);
    expect(bodyTooSlow(...upload(0), { ...limits, requestTimeoutMs: 0 }, late)).toBe(true);
  });
});
