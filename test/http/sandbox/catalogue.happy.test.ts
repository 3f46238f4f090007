import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { call, createPayment, expectEnvelope, quietSandbox, toAnswer } from '../../support/http.js';

let sandbox: Sandbox;
let imagePath: string;
beforeAll(async () => {
  sandbox = await quietSandbox();
  const created = await createPayment(sandbox);
  imagePath = new URL(created.qr_data.image_url as string).pathname;
});
afterAll(() => sandbox.close());

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

async function get(path: string, headers: Record<string, string> = {}) {
  return sandbox.fetch(new Request(`http://sandbox.test${path}`, { headers }));
}

describe('QR images at image_url', () => {
  it('renders a PNG by default, without a key, with an ETag and a long cache lifetime', async () => {
    const response = await get(imagePath);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(response.headers.get('cache-control')).toContain('max-age');
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect([...bytes.slice(0, 8)]).toEqual(PNG_SIGNATURE);
  });

  it('renders an SVG with ?format=svg, under another ETag', async () => {
    const png = await get(imagePath);
    const svg = await get(`${imagePath}?format=svg`);
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect(await svg.text()).toMatch(/<svg[\s\S]*<\/svg>/);
    expect(svg.headers.get('etag')).not.toBe(png.headers.get('etag'));
  });

  it('answers the same bytes and ETag every time: the image is a pure function of the payload', async () => {
    const a = await get(imagePath);
    const b = await get(imagePath);
    expect(a.headers.get('etag')).toBe(b.headers.get('etag'));
    expect(Buffer.from(await a.arrayBuffer()).equals(Buffer.from(await b.arrayBuffer()))).toBe(true);
  });

  it.each(['', '?format=svg'])('answers 304 without a body for If-None-Match with the ETag%s', async (query) => {
    const first = await get(`${imagePath}${query}`);
    const etag = first.headers.get('etag')!;
    const again = await get(`${imagePath}${query}`, { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect((await again.arrayBuffer()).byteLength).toBe(0);
  });

  it.each([
    ['a list holding it', (tag: string) => `"stale", ${tag}`],
    ['its weak form', (tag: string) => `W/${tag}`],
    ['*', () => '*'],
  ])('answers 304 for If-None-Match with %s, keeping ETag and Cache-Control', async (_, header) => {
    const etag = (await get(imagePath)).headers.get('etag')!;
    const again = await get(imagePath, { 'If-None-Match': header(etag) });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe('private, max-age=86400, immutable');
    expect(again.headers.get('content-type')).toBeNull();
  });

  it('answers 200 again for a stale ETag', async () => {
    const again = await get(imagePath, { 'If-None-Match': '"stale"' });
    expect(again.status).toBe(200);
  });

  it('answers the 400 envelope for an unknown format', async () => {
    const answer = await toAnswer(await get(`${imagePath}?format=gif`));
    expectEnvelope(answer, 400);
    expect(answer.body.description).toContain('format must be png or svg, got "gif"');
  });

  it('names a query parameter it does not take in Sandbox-Warning: ?fromat=svg answers the PNG, saying why', async () => {
    const response = await get(`${imagePath}?fromat=svg`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('sandbox-warning')).toBe('unknown query parameter "fromat" ignored (did you mean "format"?)');
    // The 304 of the same request says it too: the warning is added to every answer, not by the handler.
    const again = await get(`${imagePath}?fromat=svg`, { 'If-None-Match': response.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect(again.headers.get('sandbox-warning')).toBe('unknown query parameter "fromat" ignored (did you mean "format"?)');
  });

  it.each(['ptok_unknownunknownunknownunknown00', 'not-a-token', '..%2F..%2Fetc%2Fpasswd', '%E2%98%83'])('answers the 404 envelope for token %s', async (token) => {
    expectEnvelope(await toAnswer(await get(`/sandbox/v1/qr/${token}`)), 404);
  });
});

describe('the signature tool', () => {
  it('signs a body with the merchant salt and shows the string signed, salt masked', async () => {
    const answer = await call(sandbox, 'POST', '/sandbox/v1/tools/sign', { body: { amount: 1, payee: 'DEMO-MERCHANT-1' } });
    expectEnvelope(answer, 200);
    expect(answer.body).toMatchObject({ sign_type: 'SHA512', string_to_sign: 'amount=1.00&payee=DEMO-MERCHANT-1&<signing_salt>' });
    expect(answer.body.sign).toMatch(/^[0-9a-f]{128}$/);
  });
});
