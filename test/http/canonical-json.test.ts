/**
 * Canonical JSON is written once (domain/canonical-json.ts): the string to sign writes metadata
 * with it, and an Idempotency-Key compares bodies by it, so both agree on when two bodies are the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/domain/canonical-json.js';
import { canonicalJson as signedJson, signedValueText } from '../../src/domain/signature.js';
import type { Sandbox } from '../../src/index.js';
import { DEMO_KEY, DEMO_PAYEE, memorySandbox, uniqueRef } from '../helpers.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await memorySandbox();
});
afterAll(() => sandbox.close());

const create = (key: string, body: string) =>
  sandbox.fetch(new Request('http://sandbox.test/openapi/v1/payments/payment', { method: 'POST', headers: { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json', 'Idempotency-Key': key }, body }));

describe('canonical JSON, one module', () => {
  it('is the one the signature writes metadata with', () => {
    expect(signedJson).toBe(canonicalJson);
    const metadata = { z: 1, a: { y: [2, { c: 1, b: 7.0 }] }, é: 'x' };
    expect(signedValueText('metadata', metadata)).toBe(canonicalJson(metadata));
    expect(canonicalJson(metadata)).toBe('{"a":{"y":[2,{"b":7,"c":1}]},"z":1,"é":"x"}');
  });

  it('an Idempotency-Key replays a body that differs only in key order, spacing and number form; another value is a 400 naming the key', async () => {
    const ref = uniqueRef('canon');
    const key = `canon-${ref}`;
    const first = await create(key, `{"payee":"${DEMO_PAYEE}","product_type":"QR_DYNAMIC","merchant_ref_no":"${ref}","amount":5.5,"metadata":{"b":1,"a":{"y":2,"x":1}}}`);
    expect(first.status).toBe(200);
    const again = await create(key, `{ "metadata": { "a": { "x": 1.0, "y": 2 }, "b": 1 }, "amount": 5.50, "merchant_ref_no": "${ref}", "product_type": "QR_DYNAMIC", "payee": "${DEMO_PAYEE}" }`);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(await first.text());
    const other = await create(key, `{"payee":"${DEMO_PAYEE}","product_type":"QR_DYNAMIC","merchant_ref_no":"${ref}","amount":5.5,"metadata":{"b":2,"a":{"y":2,"x":1}}}`);
    expect(other.status).toBe(400);
    expect(((await other.json()) as { description: string }).description).toContain(JSON.stringify(key));
  });
});
