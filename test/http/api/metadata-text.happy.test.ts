/**
 * Metadata is kept as its JSON text (SPEC 18), and every place that shows it writes what it wrote
 * when it kept the parsed object: JSON.stringify of the object the request's JSON gave (key order
 * as JavaScript keeps it, numbers as JavaScript writes them, escapes as JSON.stringify writes them).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { createBody, DEMO_PAYEE, jsonRequest, memorySandbox } from '../../helpers.js';

// Integer-like keys (JavaScript puts them first), unicode, escapes, control characters, numbers written two ways, nesting.
const SENT = '{"b":1,"10":2,"a":{"z":[1,2.50,"x",1e2],"y":null},"é":"ü😀","esc":"quote\\" back\\\\ nl\\n tab\\t ctrl\\u0001 \\u00e9","2":true,"e":{},"l":[]}';
const SHOWN = JSON.stringify(JSON.parse(SENT));

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

function createText(ref: string): string {
  const body = JSON.stringify(createBody({ merchant_ref_no: ref }));
  return `${body.slice(0, -1)},"metadata":${SENT}}`;
}

describe('metadata kept as text', () => {
  it('the create answer, the status answer, the sandbox views and the webhook body write it as before, byte for byte', async () => {
    sandbox = await memorySandbox();
    expect(SHOWN.startsWith('{"2":true,"10":2,"b":1')).toBe(true);
    expect((await sandbox.fetch(jsonRequest('PUT', '/sandbox/v1/webhook', { url: 'http://127.0.0.1:9/hooks' }))).status).toBe(200);
    const created = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createText('meta-1')));
    expect(created.status).toBe(200);
    const createdText = await created.text();
    expect(createdText).toContain(`"metadata":${SHOWN}}`);
    const id = (JSON.parse(createdText) as { payment_id: string }).payment_id;

    for (const route of [`/openapi/v1/payments/payment/${id}`, `/v1/payments/payment/${id}`, `/sandbox/v1/payments/${id}`, '/sandbox/v1/payments?merchant_ref_no=meta-1']) {
      const text = await (await sandbox.fetch(jsonRequest('GET', route))).text();
      expect(text, route).toContain(`"metadata":${SHOWN}`);
    }
    const [delivery] = await sandbox.services.store.deliveries.list(DEMO_PAYEE, 1);
    expect(delivery!.body).toContain(`"metadata":${SHOWN}}`);
    // The payment holds the text itself, not a tree.
    const stored = await sandbox.services.store.payment(DEMO_PAYEE, id);
    expect(stored!.metadata).toBe(SHOWN);
  });

  it('a payment without metadata shows null', async () => {
    sandbox = await memorySandbox();
    const created = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody()));
    const text = await created.text();
    expect(text).toContain('"metadata":null}');
    const id = (JSON.parse(text) as { payment_id: string }).payment_id;
    expect(await (await sandbox.fetch(jsonRequest('GET', `/openapi/v1/payments/payment/${id}`))).text()).toContain('"metadata":null}');
  });
});
