/**
 * examples/{python,php}/sign_create sign create bodies exactly as the sandbox does (RFC 8785
 * metadata, encodeURIComponent, amount with two decimals), and a real listening sandbox accepts
 * what they sign for a merchant that requires signatures.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/domain/signature.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { killQuietly, startServer } from '../support/processes.js';
import type { ServerProcess } from '../support/processes.js';
import { LANGUAGES, send, signedByExample } from './support.js';

const SALT = 'salt-with-&-and-ü';

/** Bodies as JSON text, each with a way a hand-written signer goes wrong. */
const BODIES: readonly [string, string][] = [
  ['the README worked example', '{"payee":"P","product_type":"QR_DYNAMIC","merchant_ref_no":"order-1001","amount":25,"currency_code":"SGD","payer":null,"metadata":{"table":7,"note":"window seat"}}'],
  ['non-ASCII text and decimals', '{"payee":"P","product_type":"QR_DYNAMIC","merchant_ref_no":"order-1002","amount":100.50,"metadata":{"note":"café ☕","ratio":7.0,"n":100.50}}'],
  ['RFC 8785 numbers', '{"payee":"P","amount":0.1,"metadata":{"n":[1e21,1E-7,-0,333333333.33333329,1e23,5e-324,0.000001,-1.5e-7,12345678901234567890,2.50e2]}}'],
  [
    'escapes, slashes, line terminators and keys sorted by UTF-16 code units',
    String.raw`{"payee":"P","amount":9999999999.99,"metadata":{"s":"a/b \"q\" \\ \u0000\u001f\n\t\u007f \u2028\u2029 </script>","\ufb33":1,"\ud83d\ude02":2,"é":3,"":4,"1":5}}`,
  ],
  [
    'nested objects, empty ones, arrays, literals, and fields left out or kept',
    `{"payee":"it's (ok)! ~*","merchant_ref_no":"","payer":null,"amount":1,"metadata":{"b":{"z":{},"a":[]},"a":[true,false,null,{"y":1,"x":[{}]}]},"note":{},"extra":[],"flag":true}`,
  ],
];

describe.each(LANGUAGES)('$name sign_create', (language) => {
  it.each(BODIES)('signs %s exactly as the sandbox does', async (_name, text) => {
    const signed = await signedByExample(language, text, SALT);
    expect(signed.sign_type).toBe('SHA512');
    expect(signed.sign).toBe(signBody(JSON.parse(text) as Record<string, unknown>, SALT));
  });
});

describe('a real sandbox accepts what the examples sign', () => {
  let server: ServerProcess | undefined;
  let merchant: { api_key: string; payee_id: string; signing_salt: string };
  beforeAll(async () => {
    server = await startServer(path.join(tempDir('payreq-examples-'), 'sandbox.json'));
    const enrolled = await send(server.url, 'POST', '/sandbox/v1/merchants', undefined, { name: 'Examples Café', require_signature: true });
    expect(enrolled.status).toBe(200);
    merchant = enrolled.body;
  });
  afterAll(() => {
    killQuietly(server);
    removeTempDirs();
  });

  it.each(LANGUAGES)('$name: a signed create with non-ASCII metadata and decimals answers 200; the same body changed answers 401', async (language) => {
    const ref = `ex-${language.name.toLowerCase()}-${Date.now()}`;
    const text = `{"payee":"${merchant.payee_id}","product_type":"QR_DYNAMIC","merchant_ref_no":"${ref}","amount":100.50,"currency_code":"SGD","metadata":{"note":"café ☕ – naïve","ratio":7.0,"n":100.50,"path":"a/b","nested":{"ü":1,"u":[1.0,true]}}}`;
    const signed = await signedByExample(language, text, merchant.signing_salt);
    const created = await send(server!.url, 'POST', '/openapi/v1/payments/payment', merchant.api_key, signed);
    expect(created.body).toMatchObject({ code: 200, payment_id: expect.stringMatching(/^pay_/) });
    expect(created.body.metadata).toEqual({ note: 'café ☕ – naïve', ratio: 7, n: 100.5, path: 'a/b', nested: { ü: 1, u: [1, true] } });

    // The test can fail: one character of metadata changed after signing is a mismatch.
    const changed = { ...signed, metadata: { ...(signed.metadata as object), note: 'cafe ☕ – naïve' } };
    const refused = await send(server!.url, 'POST', '/openapi/v1/payments/payment', merchant.api_key, changed);
    expect(refused.status).toBe(401);
    expect(refused.body.description).toMatch(/^Signature mismatch/);
  });
});
