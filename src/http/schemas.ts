/**
 * The request schemas: the one source of truth for validation and for the OpenAPI document.
 * Messages name the field, the rule and, where it helps, what was sent.
 */
import { z } from 'zod';
import { CURRENCY_CODES } from '../domain/currencies.js';
import { FAULT_SYNTAX, ruleCanFire } from '../domain/faults.js';
import { MAX_AMOUNT_MINOR, toMinorUnits } from '../domain/money.js';
import { MAX_WEBHOOK_DELAY_SECONDS, WEBHOOK_EVENT_TYPES } from '../domain/webhook-drills.js';

// Sandbox-Fault and a rule's fault: what parseFaults (domain/faults.ts) takes, part by part (the sum of latencies is checked there only).
const FAULT_PART = '(?:latency\\s*=\\s*0*(?:[0-9]{1,4}|[1-5][0-9]{4}|60000)|error(?:-after-commit)?\\s*=\\s*[45][0-9]{2}|timeout|drop)';
export const FAULT_PATTERN = `^(?:|[\\s,]*${FAULT_PART}(?:\\s*,[\\s,]*${FAULT_PART})*[\\s,]*)$`;

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a non-finite number';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function typeError(field: string, expected: string, required: boolean) {
  return (issue: { input?: unknown }) =>
    issue.input === undefined && required ? `${field} is required (${expected})` : `${field} must be ${expected}, got ${kindOf(issue.input)}`;
}

export function text(field: string, min: number, max: number, required: boolean) {
  return z
    .string({ error: typeError(field, `a string of ${min} to ${max} characters`, required) })
    .min(min, `${field} must not be empty`)
    .max(max, `${field} must be at most ${max} characters`);
}

const MERCHANT_REF_PATTERN = /^[A-Za-z0-9._-]+$/;

export const merchantRefNo = text('merchant_ref_no', 1, 64, true).regex(MERCHANT_REF_PATTERN, 'merchant_ref_no may hold only letters, digits, ".", "_" and "-"');

/**
 * "At most two decimals" as JSON Schema that validators on binary doubles check exactly:
 * `multipleOf: 0.01` alone wrongly refuses 19.99 there (19.99 / 0.01 = 1998.9999999999998).
 * A number is a multiple of 0.01 exactly when it is a multiple of both 1/4100 and 1/33100
 * (gcd(4100, 33100) = 100), and for the double nearest to any n/100 with n up to 10^12, x / (1/4100)
 * and x / (1/33100) round to the integers 41n and 331n: 4100 and 33100 lie just above 2^12 and
 * 2^15, so the error of x (a multiple of ulp(x)/25, at most 12/25 ulp) and that of the divisor
 * stay under half an ulp of the quotient (test/http/contract/amount-declaration.test.ts).
 * Validators in decimal arithmetic take the first branch; amounts of 3 decimals fail both.
 */
export const TWO_DECIMALS = {
  anyOf: [{ multipleOf: 0.01 }, { allOf: [{ multipleOf: 1 / 4100 }, { multipleOf: 1 / 33100 }] }],
} as const;

const AMOUNT_BOUNDS = { minimum: 0.01, maximum: 9_999_999_999.99 } as const;

export const amount = z
  .number({ error: typeError('amount', 'a JSON number with at most 2 decimals, e.g. 10.50 (not a string)', true) })
  .superRefine((n, ctx) => {
    // Zero, negative or too large is a range error whatever the decimals (-5, 1e21); 0.001 is a decimals error.
    if (!(n > 0 && n * 100 <= MAX_AMOUNT_MINOR)) {
      ctx.addIssue({ code: 'custom', message: `amount must be between 0.01 and 9999999999.99, got ${n}` });
    } else if (toMinorUnits(n) === undefined) {
      ctx.addIssue({ code: 'custom', message: `amount must have at most 2 decimals, e.g. 10.50, got ${n}` });
    }
  })
  .meta({ ...AMOUNT_BOUNDS, ...TWO_DECIMALS, description: 'A JSON number from 0.01 to 9999999999.99 with at most 2 decimals (10.5 and 10.50 alike); a string is a 400.' });

export function currencyCode(field: string, required: boolean) {
  return z.enum(CURRENCY_CODES as [string, ...string[]], {
    error: (issue) =>
      issue.input === undefined && required
        ? `${field} is required`
        : `${field} must be an upper-case ISO 4217 code the sandbox supports (${CURRENCY_CODES.join(', ')}), got ${JSON.stringify(issue.input)}`,
  });
}

// A custom type, not z.record: a record is copied key by key, which drops a key "__proto__"
// (metadata is returned as sent) and left that key out of the size checks.
export const metadata = z
  .custom<Record<string, unknown>>((v) => v !== null && typeof v === 'object' && !Array.isArray(v), {
    error: (issue) => `metadata must be a JSON object, got ${kindOf(issue.input)}`,
  })
  .meta({ type: 'object', additionalProperties: true, maxProperties: 50, description: 'Any JSON object of at most 50 keys and 8 KiB. Returned as the same JSON value, written as JSON.stringify writes it, not byte for byte as sent: no whitespace, numbers in their shortest form (7.0 comes back 7, 1e2 as 100), escapes decoded (\\u00e9 comes back é), keys that are whole numbers first in ascending order, a repeated key once with its last value.' })
  .refine((m) => Object.keys(m).length <= 50, 'metadata may have at most 50 keys')
  .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= 8192, 'metadata must be at most 8 KiB as JSON')
  .superRefine((m, ctx) => {
    const where = numberNotKept(m, 'metadata');
    if (where) ctx.addIssue({ code: 'custom', message: `${where} is a number too large to keep (JSON numbers are kept as double precision, at most about 1.8e308): send it as a string` });
  });

/** The path of the first number in `value` that JSON.parse read as Infinity (its text would be written back as null), or undefined. */
function numberNotKept(value: unknown, path: string): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const found = numberNotKept(inner, Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`);
    if (found) return found;
  }
  return undefined;
}

export const payer = text('payer', 1, 64, true);
export const reason = text('reason', 1, 255, true);

export function createPaymentSchema(productTypes: readonly string[]) {
  return z.object({
    payee: text('payee', 1, 64, true),
    product_type: z.enum(productTypes as [string, ...string[]], {
      error: (issue) =>
        issue.input === undefined
          ? `product_type is required (one of ${productTypes.join(', ')})`
          : `product_type must be one of ${productTypes.join(', ')}, got ${JSON.stringify(issue.input)}`,
    }),
    merchant_ref_no: merchantRefNo,
    amount,
    currency_code: currencyCode('currency_code', false).nullish(),
    payer: text('payer', 1, 64, false).nullish(),
    metadata: metadata.nullish(),
    sign_type: text('sign_type', 1, 16, false).nullish(),
    sign: text('sign', 1, 256, false).nullish(),
  });
}

export const assignSchema = z.object({ payer });
export const reasonSchema = z.object({ reason });

export const enrollSchema = z.object({
  name: text('name', 1, 64, false).nullish(),
  city: text('city', 1, 32, false).nullish(),
  home_currency: currencyCode('home_currency', false).nullish(),
  require_signature: z.boolean({ error: typeError('require_signature', 'true or false', false) }).nullish(),
  rate_limit_per_second: z
    .number({ error: typeError('rate_limit_per_second', 'a whole number of requests per second (0 is off)', false) })
    .int('rate_limit_per_second must be a whole number')
    .min(0, 'rate_limit_per_second must be 0 (off) or more')
    .max(100_000, 'rate_limit_per_second must be at most 100000')
    .nullish(),
  inline_qr_image: z.boolean({ error: typeError('inline_qr_image', 'true or false', false) }).nullish(),
  auto_settle: z.boolean({ error: typeError('auto_settle', 'true or false', false) }).nullish(),
  qr_ttl_seconds: z
    .number({ error: typeError('qr_ttl_seconds', 'a whole number of seconds', false) })
    .int('qr_ttl_seconds must be a whole number')
    .min(10, 'qr_ttl_seconds must be at least 10')
    .max(30 * 86_400, 'qr_ttl_seconds must be at most 30 days')
    .nullish(),
});

export const pickupSchema = z.object({ payer: text('payer', 1, 64, false).nullish() });
export const paySchema = z.object({
  payer: text('payer', 1, 64, false).nullish(),
  paid_currency_code: currencyCode('paid_currency_code', false).nullish(),
});
export const failSchema = z.object({ reason: text('reason', 1, 255, false).nullish() });
export const emptySchema = z.object({});

export const advanceClockSchema = z.object({
  seconds: z
    .number({ error: typeError('seconds', 'a whole number of seconds to move the clock forward', true) })
    .int('seconds must be a whole number')
    .min(1, 'seconds must be at least 1 (the clock only moves forward)')
    .max(10 * 366 * 86_400, 'seconds must be at most 10 years'),
});

/**
 * A whole-number query parameter written in plain digits: `0x10`, `1e1` and ` 5`, which Number()
 * would take, are refused naming the field, and a number past `max` is called too large.
 */
function wholeQuery(field: string, min: number, max: number, shownExample = min) {
  const n = z
    .number({ error: (issue) => `${field} must be a whole number written in digits, such as ${shownExample}, got ${JSON.stringify(issue.input)}` })
    // max before int: past 2^53 a number is not "safe", and it is its size that is wrong.
    .max(max, `${field} must be at most ${max}`)
    .min(min, `${field} must be at least ${min}`)
    .int(`${field} must be a whole number`);
  return { optional: () => z.preprocess(plainDigits, n.optional()), withDefault: (fallback: number) => z.preprocess(plainDigits, n.default(fallback)) };
}

const plainDigits = (v: unknown) => (typeof v === 'string' && /^-?[0-9]+$/.test(v) ? Number(v) : v);

/** A `limit` query parameter: a whole number from 1 to `max`, `fallback` when absent. */
function limitQuery(max: number, fallback: number) {
  return wholeQuery('limit', 1, max, fallback).withDefault(fallback);
}

export const listQuerySchema = z.object({
  status: z.enum(['P', 'W', 'E', 'F', 'V', 'A'], { error: (i) => `status must be one of P, W, E, F, V, A, got ${JSON.stringify(i.input)}` }).optional(),
  merchant_ref_no: z.string().min(1, 'merchant_ref_no must not be empty (leave it out to list every payment)').max(64, 'merchant_ref_no must be at most 64 characters').optional(),
  search: z
    .string()
    .trim()
    .min(1, 'search must not be empty (leave it out to list every payment)')
    .max(64, 'search must be at most 64 characters (a payment_id, a merchant_ref_no or a payer)')
    .optional()
    .meta({ description: 'A payment_id (exactly), or a part of a merchant_ref_no, payer id or payer name (letter case ignored)' }),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,200}$/, 'cursor must be a next_cursor this list gave you, as it came')
    .optional()
    .meta({ description: 'next_cursor of the previous page: the page after it. Opaque; only the merchant whose list gave it can use it' }),
  limit: limitQuery(100, 20),
  offset: wholeQuery('offset', 0, 1_000_000).withDefault(0),
});

export const faultRuleSchema = z.object({
  match: z.object(
    {
      method: z
        .string({ error: typeError('match.method', 'an HTTP method such as POST, or "*"', false) })
        .regex(/^(\*|[A-Za-z]+)$/, 'match.method must be an HTTP method such as POST, or "*"')
        .default('*'),
      path: text('match.path', 1, 256, true)
        .regex(/^[\x21-\x7e]+$/, { error: 'match.path must be a path such as /openapi/v1/payments/payment, with * as a wildcard', abort: true })
        .refine(ruleCanFire, {
          error: (issue) =>
            `match.path ${sent(issue.input)} can never match: fault rules apply to the public API paths only (/openapi/v1/..., /v1/...), ` +
            'not to control routes, pages or health; use a public path such as /openapi/v1/payments/payment, or a glob that can match one (*/payments/payment/*/cancel)',
        }),
    },
    { error: typeError('match', 'an object {method, path}', true) },
  ),
  fault: text('fault', 1, 128, true).meta({ pattern: FAULT_PATTERN, description: `As the Sandbox-Fault header: ${FAULT_SYNTAX}, several joined with ","` }),
  probability: z
    .number({ error: typeError('probability', 'a number from 0 to 1', false) })
    .min(0, 'probability must be from 0 to 1')
    .max(1, 'probability must be from 0 to 1')
    .default(1),
  times: z
    .number({ error: typeError('times', 'a whole number of times the rule may fire', false) })
    .int('times must be a whole number')
    .min(1, 'times must be at least 1 (leave it out for no limit)')
    .nullish(),
  seed: z.number({ error: typeError('seed', 'a whole number', false) }).int('seed must be a whole number').nullish(),
});

const httpStatusRange = (issue: { input: unknown }) => `status must be an HTTP status from 100 to 599, got ${String(issue.input)}`;

export const journalQuerySchema = z.object({
  method: z.string().regex(/^[A-Za-z]+$/, 'method must be an HTTP method such as POST').optional(),
  path: z.string().max(256, 'path must be at most 256 characters').optional(),
  status: z
    .preprocess(
      (v) => (v === 'dropped' || v === 'held' ? v : plainDigits(v)),
      z.union([z.enum(['dropped', 'held']), z.number().min(100, { error: httpStatusRange }).max(599, { error: httpStatusRange })], {
        error: (issue) => `status must be dropped, held or a whole number written in digits, such as 402, got ${JSON.stringify(issue.input)}`,
      }),
    )
    .optional(),
  limit: limitQuery(500, 50),
});

const URL_OR_FAULTS = 'url is required (an http:// or https:// URL, or null to turn webhooks off), or faults to change only the drills';

const webhookUrl = z
  .string({ error: typeError('url', 'an http:// or https:// URL, or null to turn webhooks off', false) })
  .max(2048, 'url must be at most 2048 characters')
  .refine((u) => {
    try {
      const parsed = new URL(u);
      return parsed.protocol === 'http:' || parsed.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'url must be an absolute http:// or https:// URL, e.g. https://example.test/hooks/payreq')
  .meta({ pattern: '^[Hh][Tt][Tt][Pp][Ss]?:', description: 'An absolute http:// or https:// URL' })
  .nullable()
  .optional()
  .meta({ description: 'Where state changes are POSTed; null turns webhooks off; absent keeps the URL set before' });

const webhookFaults = z
  .object(
    {
      duplicate: z
        .number({ error: typeError('faults.duplicate', 'a probability from 0 to 1', false) })
        .min(0, between('faults.duplicate', 0, 1))
        .max(1, between('faults.duplicate', 0, 1))
        .nullish()
        .meta({ description: 'Probability that a delivery is sent twice, with the same event_id (0 when absent)' }),
      reorder: z
        .boolean({ error: typeError('faults.reorder', 'true or false', false) })
        .nullish()
        .meta({ description: 'Events of one payment that fall due together are sent newest first (false when absent)' }),
      delay_seconds: z
        .number({ error: typeError('faults.delay_seconds', `a whole number of sandbox seconds from 0 to ${MAX_WEBHOOK_DELAY_SECONDS}`, false) })
        .int({ error: (issue) => `faults.delay_seconds must be a whole number of seconds, got ${sent(issue.input)}` })
        .min(0, between('faults.delay_seconds', 0, MAX_WEBHOOK_DELAY_SECONDS))
        .max(MAX_WEBHOOK_DELAY_SECONDS, between('faults.delay_seconds', 0, MAX_WEBHOOK_DELAY_SECONDS))
        .nullish()
        .meta({ description: 'Each delivery is held this many sandbox seconds: real time or POST /sandbox/v1/clock/advance releases it (0 when absent)' }),
    },
    { error: typeError('faults', 'an object {duplicate, reorder, delay_seconds}, or null to turn the drills off', false) },
  )
  // Absent keeps the drills set before; null or {} turns them off (a member left out is 0 or false).
  .nullish()
  .meta({ description: 'Webhook drills. Absent: the drills set before are kept; null or {}: turned off (a member left out is 0 or false).' });

/** PUT /sandbox/v1/webhook: what is left out keeps what was set before; at least one of url and faults. */
export const webhookSchema = z
  .object({ url: webhookUrl, faults: webhookFaults })
  .refine((body) => body.url !== undefined || body.faults !== undefined, { path: ['url'], error: URL_OR_FAULTS })
  .meta({ anyOf: [{ required: ['url'] }, { required: ['faults'] }] });

/** What was sent, short: a number or boolean as is, a string quoted (cut at 64 characters), else its kind. */
function sent(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : kindOf(value);
}

/** Bounds named with what was sent: "faults.duplicate must be between 0 and 1, got 2". */
function between(field: string, min: number, max: number) {
  return { error: (issue: { input?: unknown }) => `${field} must be between ${min} and ${max}, got ${sent(issue.input)}` };
}

export const webhookTestSchema = z.object({
  type: z.enum(WEBHOOK_EVENT_TYPES as [string, ...string[]], {
    error: (issue) =>
      issue.input === undefined
        ? `type is required (one of ${WEBHOOK_EVENT_TYPES.join(', ')})`
        : `type must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}, got ${sent(issue.input)}`,
  }),
});

export const deliveriesQuerySchema = z.object({
  limit: limitQuery(200, 50),
});
