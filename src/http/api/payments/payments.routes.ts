/** The contracts of the public API: create, assign, cancel, void and status, as production serves them. */
import { z } from 'zod';
import { BODY_ANSWERS, FAULT_ANSWERS, KEYED_ANSWERS, answers, fieldError, json, okBody, problemBody, requestHeaders } from '../../contract/answers.js';
import { defineRoute } from '../../contract/route.js';
import { assignSchema, createPaymentSchema, reasonSchema } from '../../schemas.js';
import { paymentIdView, paymentStatusShape, qrDataView } from '../../views.js';

const tag = 'Payments';
const params = z.object({ payment_id: paymentIdView.meta({ description: 'As returned by create' }) });

/** What every public route may answer besides its own: the key, the rate limit, the store, the faults. */
const PUBLIC_ANSWERS = { ...KEYED_ANSWERS, ...FAULT_ANSWERS, 400: answers.invalid } as const;
const POST_HEADERS = { 'Sandbox-Fault': requestHeaders.sandboxFault, 'Idempotency-Key': requestHeaders.idempotencyKey } as const;

const changed = (what: string) => json(what, okBody({}));

const transition = <A extends string, S extends z.ZodObject>(action: A, summary: string, schema: S) =>
  defineRoute({
    method: 'post',
    path: `/payments/payment/{payment_id}/${action}`,
    summary,
    tag,
    access: 'key',
    request: { params, headers: POST_HEADERS, body: { schema, required: true } },
    responses: {
      200: changed('Done: the description names the new status.'),
      402: answers.refused,
      404: answers.notFound,
      ...BODY_ANSWERS,
      ...PUBLIC_ANSWERS,
    },
  });

export function paymentRoutes(productTypes: readonly string[]) {
  return {
    create: defineRoute({
      method: 'post',
      path: '/payments/payment',
      summary: 'Create a payment (yields an EMVCo QR)',
      description: 'Amounts 900.01 and 900.02 answer 500 and 503 (magic values); GET /sandbox/v1/magic lists them.',
      tag,
      access: 'key',
      request: { headers: POST_HEADERS, body: { schema: createPaymentSchema(productTypes), required: true } },
      responses: {
        200: json(
          'Created: status P, or W with a payer (A at once for PAYER_PAYS).',
          okBody({ payment_id: paymentIdView, payment_code: z.string(), payment_token: z.string(), qr_data: qrDataView, metadata: paymentStatusShape.metadata }),
        ),
        ...BODY_ANSWERS,
        ...PUBLIC_ANSWERS,
        400: json('Invalid parameters (each named in errors), or a payee that is not the merchant of this key.', problemBody(400, { errors: z.array(fieldError).optional() })),
        401: json(
          'Missing or unknown Service-Api-Key; or a signature missing where required, an unknown sign_type, or a mismatch (then string_to_sign, salt masked, and signature_hint).',
          problemBody(401, {
            string_to_sign: z.string().optional().meta({ description: 'On a mismatch: the string the sandbox signed, the salt shown as <signing_salt>' }),
            signature_hint: z
              .string()
              .optional()
              .meta({ description: 'On a mismatch: the known mistake that yields this sign, if any, and its fix; past 10 hints a second for this merchant, that the hint was withheld and in how many ms the next can be given' }),
          }),
        ),
        402: json(
          'A duplicate merchant_ref_no (payment_id names the existing payment), or the sandbox cap on stored payments.',
          problemBody(402, { payment_id: paymentIdView.optional().meta({ description: 'On a duplicate merchant_ref_no: the payment that has it' }) }),
        ),
      },
    }),
    assign: transition('assign', 'Assign a payer (P or W to W)', assignSchema),
    cancel: transition('cancel', 'Cancel before payment (P or W to V)', reasonSchema),
    void: transition('void', 'Void a paid payment before settlement (A to V)', reasonSchema),
    status: defineRoute({
      method: 'get',
      path: '/payments/payment/{payment_id}',
      summary: 'Check payment status',
      tag,
      access: 'key',
      request: { params, headers: { 'Sandbox-Fault': requestHeaders.sandboxFault } },
      responses: {
        200: json('The payment as the interface shows it.', okBody(paymentStatusShape)),
        404: answers.notFound,
        ...PUBLIC_ANSWERS,
      },
    }),
  };
}

export type PaymentRoutes = ReturnType<typeof paymentRoutes>;
