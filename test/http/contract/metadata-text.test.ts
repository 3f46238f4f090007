/**
 * metadata comes back as the same JSON value, not byte for byte as sent: written as
 * JSON.stringify writes the parsed object, as the document (and the docs) say.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { DEMO_KEY, DEMO_PAYEE, memorySandbox, uniqueRef } from '../../helpers.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await memorySandbox();
});
afterAll(() => sandbox.close());

const headers = { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' };

/** Creates a payment with this metadata text; answers the metadata text of the create and the status answers. */
async function roundTrip(metadataText: string): Promise<{ created: string; status: string }> {
  const body = `{"payee":"${DEMO_PAYEE}","product_type":"QR_DYNAMIC","merchant_ref_no":"${uniqueRef('meta')}","amount":5,"metadata":${metadataText}}`;
  const created = await (await sandbox.fetch(new Request('http://sandbox.test/openapi/v1/payments/payment', { method: 'POST', headers, body }))).text();
  const id = (JSON.parse(created) as { payment_id: string }).payment_id;
  const status = await (await sandbox.fetch(new Request(`http://sandbox.test/openapi/v1/payments/payment/${id}`, { headers }))).text();
  const metadataOf = (text: string) => /"metadata":(\{.*\})\}$/.exec(text)?.[1] ?? text;
  return { created: metadataOf(created), status: metadataOf(status) };
}

describe('metadata text', () => {
  it.each([
    ['numbers in their shortest form', '{"table": 7.0, "big": 1e2, "tiny": 0.50}', '{"table":7,"big":100,"tiny":0.5}'],
    ['escapes decoded', '{"name": "caf\\u00e9", "path": "a\\/b"}', '{"name":"café","path":"a/b"}'],
    ['whole-number keys first, ascending; other keys in the order sent', '{"b": 1, "10": 2, "a": 3, "2": 4}', '{"2":4,"10":2,"b":1,"a":3}'],
    ['a repeated key once, with its last value', '{"a": 1, "a": 2}', '{"a":2}'],
    ['whitespace dropped, nesting kept', '{ "n" : { "x" : [ 1 , true , null ] } }', '{"n":{"x":[1,true,null]}}'],
  ])('%s: %s comes back %s', async (_what, sent, expected) => {
    const { created, status } = await roundTrip(sent);
    expect(created).toBe(expected);
    expect(status).toBe(expected);
    // The same JSON value as sent, whatever its text.
    expect(JSON.parse(status)).toEqual(JSON.parse(sent));
  });

  it('the document says so', async () => {
    const doc = (await (await sandbox.fetch(new Request('http://sandbox.test/openapi.json'))).json()) as any;
    const schema = doc.paths['/openapi/v1/payments/payment'].post.requestBody.content['application/json'].schema;
    expect(schema.properties.metadata.anyOf[0].description).toMatch(/not byte for byte as sent.*7\.0 comes back 7.*\\u00e9 comes back é/);
  });
});
