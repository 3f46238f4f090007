/** Contracts of enrolment, the key's own merchant and its deletion. */
import { z } from 'zod';
import { BODY_ANSWERS, KEYED_ANSWERS, STORE_ANSWERS, answers, json, okBody } from '../../contract/answers.js';
import { defineRoute } from '../../contract/route.js';
import { enrollSchema } from '../../schemas.js';

const tag = 'Sandbox control';

/** The schema of merchantProfile. */
const profileShape = {
  payee_id: z.string(),
  home_currency: z.string(),
  name: z.string(),
  city: z.string(),
  country_code: z.string(),
  mcc: z.string(),
  require_signature: z.boolean(),
  rate_limit_per_second: z.number().int().min(0),
  inline_qr_image: z.boolean(),
  auto_settle: z.boolean(),
  qr_ttl_seconds: z.number().int(),
};

/** The merchant's own storage: bytes of its stored records and its quota (SANDBOX_MERCHANT_STORAGE_MB). */
const storageShape = z.object({
  used_bytes: z.number().int().min(0).meta({ description: 'Bytes of the records it holds: payments, journal, deliveries, idempotency answers, readiness evidence' }),
  quota_bytes: z.number().int().min(0).meta({ description: 'Past it, creates answer 402' }),
  fair_share_bytes: z.number().int().min(0).meta({ description: "The sandbox's budget divided among the merchants holding data (this one counted): once the sandbox is full, past it creates answer 402 and the journal, deliveries and evidence keep only their newest within it" }),
  allowance_bytes: z.number().int().min(0).meta({ description: 'What it may hold now: its quota, or the smaller of its quota and its fair share while the sandbox is full' }),
});

export const enroll = defineRoute({
  method: 'post',
  path: '/merchants',
  summary: 'Enroll a merchant (returns api_key, payee_id, signing_salt)',
  description: 'No key needed, unless the sandbox runs with SANDBOX_ADMIN_TOKEN (then Authorization: Bearer <token>; a client address that sent 10 wrong tokens within a minute is answered 429 until one leaves the minute). Without it, each client address may enroll a few merchants a minute.',
  tag,
  access: 'admin',
  request: { body: { schema: enrollSchema, required: false } },
  responses: {
    200: json('Enrolled: signing_salt is shown only now.', okBody({ api_key: z.string(), signing_salt: z.string(), ...profileShape })),
    ...BODY_ANSWERS,
    401: answers.unauthenticated,
    402: answers.refused,
    429: answers.rateLimited,
    ...STORE_ANSWERS,
  },
});

export const ownMerchant = defineRoute({
  method: 'get',
  path: '/merchant',
  summary: "The key's own merchant: payee id, settings and its storage usage (never keys or salt)",
  description: 'The merchant of this key: payee id, name, city, country, MCC, currency, settings, and how much of its storage quota it uses. API keys and the signing salt are never shown again after enrolment.',
  tag,
  access: 'key',
  responses: { 200: json('The merchant.', okBody({ ...profileShape, storage: storageShape })), ...KEYED_ANSWERS },
});

const count = z.number().int().min(0);

export const deleteOwnMerchant = defineRoute({
  method: 'delete',
  path: '/merchant',
  summary: "Delete the key's own merchant, with everything it holds",
  description:
    'Erases its payments, request journal, webhook deliveries, idempotency keys, readiness evidence, fault rules, sandbox clock, API keys and the merchant itself, for good. ' +
    'Afterwards the key answers 401 like an unknown key, and the payer pages and QR images of its payments 404 like unknown tokens.',
  tag,
  access: 'key',
  responses: {
    200: json(
      'Deleted: what was erased, counted.',
      okBody({
        payee_id: z.string(),
        erased: z.object({ payments: count, journal_entries: count, deliveries: count, fault_rules: count, api_keys: count }),
      }),
    ),
    401: answers.unauthenticated,
    ...STORE_ANSWERS,
  },
});
