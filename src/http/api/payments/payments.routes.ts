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

const transition = <A extends string, S extends z.ZodObject>(action: A, summary: string, description: string, schema: S) =>
  defineRoute({
    method: 'post',
    path: `/payments/payment/{payment_id}/${action}`,
    summary,
    description,
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
    assign: transition('assign', 'Assign a payer (P or W to W)', 'Gives the payment a payer: P becomes W; in W the payer is replaced. A magic payer (PAYER_PAYS, PAYER_PAYS_LATER, PAYER_DECLINES, PAYER_NEVER_PAYS) steers what happens next. Any other status is refused with 402 naming it.', assignSchema),
    cancel: transition('cancel', 'Cancel before payment (P or W to V)', 'The merchant cancels a payment the payer has not paid: status V, the reason kept in its history. A paid payment is refused with 402 (use void).', reasonSchema),
    void: transition('void', 'Void a paid payment before settlement (A to V)', 'The merchant voids a paid payment that is not settled yet: status V, the reason kept in its history. Before payment it is refused with 402 (use cancel); once settled, with 402 too.', reasonSchema),
    status: defineRoute({
      method: 'get',
      path: '/payments/payment/{payment_id}',
      summary: 'Check payment status',
      description: "The payment as the interface shows it: status, amounts written with two decimals, payee, payer (null before one is assigned), source and fee (after payment), payment_date in Unix seconds (null until paid) and metadata as sent. Another merchant's payment_id answers 404, exactly like an unknown one.",
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
