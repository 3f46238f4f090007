/**
 * What an integrator writes with a client generated from /openapi.json (openapi-typescript types,
 * openapi-fetch calls): create, pay, read the status. Type-checked against freshly generated
 * types by generated-client.test.ts, which also runs it against a listening sandbox.
 */
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

export interface Flow {
  readonly paymentId: string;
  readonly created: 'P' | 'W' | 'A' | 'E' | 'F' | 'V';
  readonly status: 'P' | 'W' | 'A' | 'E' | 'F' | 'V';
  readonly amount: number;
  readonly payer: string | undefined;
}

export async function createPayRead(baseUrl: string, key: string, payee: string, merchantRefNo: string): Promise<Flow> {
  const client = createClient<paths>({ baseUrl, headers: { 'Service-Api-Key': key } });
  const created = await client.POST('/openapi/v1/payments/payment', { body: { payee, product_type: 'QR_DYNAMIC', merchant_ref_no: merchantRefNo, amount: 10.5 } });
  if (!created.data) throw new Error(`create answered ${created.response.status}: ${created.error?.description ?? ''}`);
  const paymentId: string = created.data.payment_id;
  const before = await client.GET('/openapi/v1/payments/payment/{payment_id}', { params: { path: { payment_id: paymentId } } });
  if (!before.data) throw new Error(`status answered ${before.response.status}`);
  const paid = await client.POST('/sandbox/v1/payments/{payment_id}/pay', { params: { path: { payment_id: paymentId } }, body: {} });
  if (!paid.data) throw new Error(`pay answered ${paid.response.status}: ${paid.error?.description ?? ''}`);
  const after = await client.GET('/openapi/v1/payments/payment/{payment_id}', { params: { path: { payment_id: paymentId } } });
  if (!after.data) throw new Error(`status answered ${after.response.status}`);
  return { paymentId, created: before.data.payment_status, status: after.data.payment_status, amount: after.data.paid_amount, payer: after.data.payer?.name };
}
