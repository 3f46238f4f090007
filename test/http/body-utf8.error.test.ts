/** SPEC 10: a body that is not UTF-8 is refused (400, naming the byte) and changes nothing; it is never rewritten with U+FFFD. */
import { describe, expect, it } from 'vitest';
import { firstNonUtf8Byte } from '../../src/http/body.js';
import { rawExchange } from '../support/raw-http.js';
import { DEMO_KEY, createBody, expectEnvelope, listeningSandbox, toAnswer } from '../support/http.js';
import type { Answer } from '../support/http.js';

/** A create body whose payer is `payer` (raw bytes spliced into the JSON text). */
function createBytes(ref: string, payer: Buffer): Buffer {
  const [before, after] = JSON.stringify(createBody({ merchant_ref_no: ref, payer: '@@' })).split('@@') as [string, string];
  return Buffer.concat([Buffer.from(before), payer, Buffer.from(after)]);
}

const CREATE = '/openapi/v1/payments/payment';

describe('bodies that are not UTF-8', () => {
  const live = listeningSandbox();

  async function post(bytes: Uint8Array, headers: Record<string, string> = {}): Promise<Answer> {
    const request = new Request(`http://sandbox.test${CREATE}`, { method: 'POST', headers: { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json', ...headers }, body: bytes });
    return toAnswer(await live.sandbox.fetch(request));
  }

  async function paymentsWithRef(ref: string): Promise<number> {
    const res = await live.sandbox.fetch(new Request(`http://sandbox.test/sandbox/v1/payments?merchant_ref_no=${ref}`, { headers: { 'Service-Api-Key': DEMO_KEY } }));
    return ((await res.json()) as { total: number }).total;
  }

  it('the payer "\\xff\\xfe" in-process: 400 naming the byte, and no payment', async () => {
    const bytes = createBytes('utf8-ff', Buffer.from([0xff, 0xfe]));
    const at = bytes.indexOf(0xff);
    const answer = await post(bytes);
    expectEnvelope(answer, 400);
    expect(answer.body.description).toBe(
      `The body is not valid UTF-8: byte ${at} (counting from 0) is 0xFF, which cannot stand there. Send the JSON as UTF-8 text (any character may also be written as a \\u escape, e.g. "\\u00e9").`,
    );
    expect(await paymentsWithRef('utf8-ff')).toBe(0);
  });

  it.each([
    ['an overlong "/" (C0 AF)', [0xc0, 0xaf], 0],
    ['a surrogate half (ED A0 80)', [0xed, 0xa0, 0x80], 1],
    ['past U+10FFFF (F4 90 80 80)', [0xf4, 0x90, 0x80, 0x80], 1],
    ['a lone continuation byte (80)', [0x80], 0],
    ['a character cut short by a quote (E2 82 ")', [0xe2, 0x82], 2],
  ])('%s is refused at the byte that breaks it', async (_what, bad, offset) => {
    const ref = `utf8-${bad.map((b) => b.toString(16)).join('')}`;
    const bytes = createBytes(ref, Buffer.from(bad));
    const at = bytes.indexOf(Buffer.from(bad)) + offset;
    const answer = await post(bytes);
    expectEnvelope(answer, 400);
    expect(answer.body.description).toContain(`not valid UTF-8: byte ${at} (counting from 0) is 0x${bytes[at]!.toString(16).toUpperCase()}`);
    expect(await paymentsWithRef(ref)).toBe(0);
  });

  it('a body that ends inside a character says so', async () => {
    const answer = await post(Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xf0, 0x9f, 0x98])]));
    expectEnvelope(answer, 400);
    expect(answer.body.description).toMatch(/^The body is not valid UTF-8: it ends inside a character/);
  });

  it('with an Idempotency-Key (read for its fingerprint first) the answer is the same 400, and the key stays unused', async () => {
    const bytes = createBytes('utf8-idem', Buffer.from([0xff]));
    const answer = await post(bytes, { 'Idempotency-Key': 'utf8-key-1' });
    expectEnvelope(answer, 400);
    expect(answer.body.description).toMatch(/not valid UTF-8/);
    const fixed = await post(createBytes('utf8-idem', Buffer.from('ok')), { 'Idempotency-Key': 'utf8-key-1' });
    expectEnvelope(fixed, 200);
  });

  it('control routes refuse it too', async () => {
    const request = new Request('http://sandbox.test/sandbox/v1/faults', {
      method: 'POST',
      headers: { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' },
      body: Buffer.concat([Buffer.from('{"match":{"path":"/v1/'), Buffer.from([0xfe]), Buffer.from('"},"fault":"error=500"}')]),
    });
    const answer = await toAnswer(await live.sandbox.fetch(request));
    expectEnvelope(answer, 400);
    expect(answer.body.description).toMatch(/not valid UTF-8: byte 22 /);
    const rules = await live.sandbox.fetch(new Request('http://sandbox.test/sandbox/v1/faults', { headers: { 'Service-Api-Key': DEMO_KEY } }));
    expect(((await rules.json()) as { rules: unknown[] }).rules).toEqual([]);
  });

  it('UTF-8 text of every length (é, ✓, 😀) is taken as sent', async () => {
    const answer = await post(createBytes('utf8-fine', Buffer.from('Zoë ✓ 😀')));
    expectEnvelope(answer, 200);
    const status = await live.sandbox.fetch(new Request(`http://sandbox.test${CREATE}/${answer.body.payment_id as string}`, { headers: { 'Service-Api-Key': DEMO_KEY } }));
    expect(((await status.json()) as { payer: { id: string } }).payer.id).toBe('Zoë ✓ 😀');
  });

  it('through a real server, with Content-Length and chunked: 400, and no payment', async () => {
    const sized = createBytes('utf8-live-1', Buffer.from([0xff, 0xfe]));
    const head = (extra: string) =>
      `POST ${CREATE} HTTP/1.1\r\nHost: 127.0.0.1\r\nService-Api-Key: ${DEMO_KEY}\r\nContent-Type: application/json\r\nConnection: close\r\n${extra}\r\n`;
    const one = await rawExchange(live.server.port, Buffer.concat([Buffer.from(head(`Content-Length: ${sized.length}\r\n`)), sized]));
    expect(one.status).toBe(400);
    expect(JSON.parse(one.body).description).toContain(`not valid UTF-8: byte ${sized.indexOf(0xff)} (counting from 0) is 0xFF`);

    const chunkedBody = createBytes('utf8-live-2', Buffer.from([0xfe]));
    const chunks = Buffer.concat([Buffer.from(`${chunkedBody.length.toString(16)}\r\n`), chunkedBody, Buffer.from('\r\n0\r\n\r\n')]);
    const two = await rawExchange(live.server.port, Buffer.concat([Buffer.from(head('Transfer-Encoding: chunked\r\n')), chunks]));
    expect(two.status).toBe(400);
    expect(JSON.parse(two.body).description).toContain(`not valid UTF-8: byte ${chunkedBody.indexOf(0xfe)} (counting from 0) is 0xFE`);

    expect(await paymentsWithRef('utf8-live-1')).toBe(0);
    expect(await paymentsWithRef('utf8-live-2')).toBe(0);
  });
});

describe('firstNonUtf8Byte', () => {
  it('agrees with the strict native decoder on random bytes, biased toward UTF-8 lead bytes', () => {
    const alphabet = [0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf4, 0xf5, 0xff];
    /** Whether `bytes` decode, whole (or, with `partial`, as the start of a longer text). */
    const decodes = (bytes: Uint8Array, partial = false) => {
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: partial });
        return true;
      } catch {
        return false;
      }
    };
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let n = 0; n < 8_000; n++) {
      const bytes = Uint8Array.from({ length: 1 + (next() % 6) }, () => alphabet[next() % alphabet.length]!);
      const at = firstNonUtf8Byte(bytes);
      const shown = Buffer.from(bytes).toString('hex');
      if (decodes(bytes)) expect(at, shown).toBe(bytes.length);
      else if (at === bytes.length) expect(decodes(bytes, true), `${shown} ends inside a character`).toBe(true);
      else {
        // Everything before the byte named can start a text; with it, nothing can.
        expect(decodes(bytes.subarray(0, at), true), shown).toBe(true);
        expect(decodes(bytes.subarray(0, at + 1), true), shown).toBe(false);
      }
    }
  });
});
