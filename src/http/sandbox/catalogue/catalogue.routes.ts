/** Contracts of the catalogues (codes, magic values) and the signature tool. */
import { z } from 'zod';
import { BODY_ANSWERS, KEYED_ANSWERS, answers, json, okBody, requestHeaders } from '../../contract/answers.js';
import { defineRoute } from '../../contract/route.js';

const tag = 'Sandbox tools';

export const codes = defineRoute({
  method: 'get',
  path: '/codes',
  summary: 'Every code the sandbox answers, with its meaning and causes',
  description: 'The codes of the envelope (which equal the HTTP status by default), each with its meaning and what causes it in the sandbox. No key needed.',
  tag,
  access: 'open',
  responses: {
    200: json('The code catalogue.', okBody({ codes: z.array(z.object({ code: z.number().int(), meaning: z.string(), causes: z.array(z.string()) })) })),
    500: answers.internal,
  },
});

export const magic = defineRoute({
  method: 'get',
  path: '/magic',
  summary: 'Every magic value: data that steers the outcome without a control call',
  description: 'The payers (PAYER_PAYS, PAYER_DECLINES, ...) and amounts (900.01 to 900.04) that make a payment pay, fail, wait or fault through the data an application already sends. No key needed.',
  tag,
  access: 'open',
  responses: {
    200: json(
      'The magic payers and amounts.',
      okBody({
        payers: z.array(z.object({ field: z.literal('payer'), value: z.string(), effect: z.string() })),
        amounts: z.array(z.object({ field: z.literal('amount'), value: z.string().meta({ description: 'Two decimals, e.g. "900.01"' }), fault: z.string(), effect: z.string() })),
      }),
    ),
    500: answers.internal,
  },
});

export const sign = defineRoute({
  method: 'post',
  path: '/tools/sign',
  summary: 'Compute the signature of a create body with your signing salt',
  description:
    'Signs with the signing salt only, never with the webhook secret: webhook deliveries are signed with that secret (Sandbox-Signature), ' +
    'so this route cannot make a delivery a receiver would accept.',
  tag,
  access: 'key',
  request: {
    headers: { 'Idempotency-Key': requestHeaders.idempotencyKey },
    body: { schema: z.looseObject({}), required: true, description: 'A create body (any JSON object): every field but sign_type and sign is signed' },
  },
  responses: {
    200: json(
      'The signature and the string that was signed (salt masked).',
      okBody({ sign_type: z.literal('SHA512'), sign: z.string().regex(/^[0-9a-f]{128}$/), string_to_sign: z.string() }),
    ),
    ...BODY_ANSWERS,
    ...KEYED_ANSWERS,
    402: answers.refused,
  },
});
