/**
 * The scenario format: one flow per file, ordered steps, captures and assertions.
 * This zod schema is the one source of truth: the loader validates with it and
 * scenarios/scenario.schema.json is generated from it (npm run scenario-schema).
 */
import { z } from 'zod';

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const variableName = z.string().regex(VARIABLE_NAME, 'must be a name of letters, digits and "_", not starting with a digit');

const MATCHER_KEYS = ['equals', 'matches', 'contains', 'type', 'exists', 'oneOf', 'length', 'gt', 'gte', 'lt', 'lte'] as const;
const VALUE_TYPES = ['string', 'number', 'integer', 'boolean', 'null', 'object', 'array'] as const;

/** A number, or a template that gives one: `gte: "{{expires_at}}"`. */
const numberOrTemplate = z.union([z.number(), z.string().regex(/\{\{[\s\S]*\}\}/, 'must be a number or a {{template}} that gives one')], {
  error: 'must be a number or a {{template}} that gives one',
});

const matcherSchema = z
  .strictObject({
    equals: z.unknown().optional().describe('deep equality with this JSON value'),
    matches: z.string().optional().describe('a regular expression the value (as text) must match; "/re/i" gives flags'),
    contains: z.unknown().optional().describe('a substring of a string value, or an element of an array value'),
    type: z.enum(VALUE_TYPES).optional().describe('the JSON type of the value'),
    exists: z.boolean().optional().describe('true: the path is present (null counts); false: it is absent'),
    oneOf: z.array(z.unknown()).optional().describe('the value deep-equals one of these'),
    length: numberOrTemplate.optional().describe('length of a string or array'),
    gt: numberOrTemplate.optional(),
    gte: numberOrTemplate.optional(),
    lt: numberOrTemplate.optional(),
    lte: numberOrTemplate.optional(),
  })
  .refine((m) => Object.keys(m).length > 0, {
    message: `a matcher needs at least one of ${MATCHER_KEYS.join(', ')}`,
    // An unknown key is the better message: {regex: ...} has no known key either.
    when: (payload) => payload.issues.length === 0,
  })
  .meta({ id: 'Matcher', description: 'A matcher: every key given must hold.' });

const numberExpectation = z.union([z.number().int(), matcherSchema], { error: 'must be a whole number or a matcher object (e.g. {oneOf: [200, 402]})' });
const textExpectation = z.union([z.string().describe('a regular expression'), matcherSchema], {
  error: 'must be a regular expression (string) or a matcher object',
});
const valueExpectationSchema = z
  .union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), matcherSchema], {
    error: 'must be a JSON scalar or array (equality) or a matcher object',
  })
  .meta({ id: 'ValueExpectation', description: 'A scalar or array: deep equality. An object: a matcher (to compare with an object, use {equals: {...}}).' });

export const expectSchema = z
  .strictObject({
    outcome: z
      .enum(['response', 'timeout', 'dropped'])
      .optional()
      .describe('what the client sees: a response (default), no response before the timeout, or the connection closed without one'),
    status: numberExpectation.optional().describe('the HTTP status'),
    code: numberExpectation.optional().describe('the `code` field of the envelope'),
    description: textExpectation.optional().describe('the `description` field: a string is a regular expression'),
    body: z
      .record(z.string(), valueExpectationSchema)
      .optional()
      .describe('body paths ("payment_status", "$.payee.id", "errors[0].field") and what each must be'),
    headers: z
      .record(z.string(), z.union([z.string(), matcherSchema], { error: 'must be the exact header value (string) or a matcher object' }))
      .optional()
      .describe('response headers by name (any case): a string is the exact value'),
    text: textExpectation.optional().describe('the raw body text: a string is a regular expression'),
  })
  .meta({ id: 'Expect', description: 'Assertions on the response; every one is checked and each failure is reported.' });

export const captureSchema = z
  .record(
    variableName,
    z.union([z.string().describe('a body path such as $.payment_id'), z.strictObject({ header: z.string().min(1) })], {
      error: 'must be a body path such as "$.payment_id" or {header: "Name"}',
    }),
  )
  .meta({ id: 'Capture', description: 'Variables to set from the response: a body path, or {header: name}.' });

const paymentStatus = z.enum(['P', 'W', 'A', 'E', 'F', 'V']);

const stepCommon = {
  name: z.string().min(1).optional().describe('shown in the report; default: the step kind and its target'),
  as: variableName.optional().describe('act as this merchant (an alias given to enroll); default: the scenario merchant'),
  timeout_ms: z.number().int().positive().optional().describe("the client's patience for this step's request, ms"),
  expect: expectSchema.optional(),
  capture: captureSchema.optional(),
};

/** The keys every step may have besides its kind. */
export const STEP_COMMON_KEYS: readonly string[] = Object.keys(stepCommon);

const requestSchema = z
  .strictObject({
    method: z.string().regex(/^[A-Za-z]+$/, 'must be an HTTP method such as GET or POST'),
    path: z.string().startsWith('/', 'must start with "/" (it is appended to the base URL)'),
    query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
    headers: z
      .record(z.string(), z.union([z.string(), z.null()]))
      .optional()
      .describe('extra headers; null removes a default one (Service-Api-Key, Content-Type)'),
    body: z.unknown().optional().describe('a JSON value, sent as application/json'),
    raw_body: z.string().optional().describe('the body text exactly as given (for malformed JSON); Content-Type defaults to application/json'),
  })
  .refine((r) => !('body' in r && 'raw_body' in r), 'give body or raw_body, not both');

const enrollSettings = {
  name: z.string().optional(),
  city: z.string().optional(),
  home_currency: z.string().optional(),
  require_signature: z.boolean().optional(),
  rate_limit_per_second: z.number().int().min(0).optional(),
  inline_qr_image: z.boolean().optional(),
  auto_settle: z.boolean().optional(),
  qr_ttl_seconds: z.number().int().optional(),
};
const merchantSettingsSchema = z.strictObject(enrollSettings).describe('Settings of a merchant enrolled for the scenario (POST /sandbox/v1/merchants).');

const paymentRef = z.string().min(1).describe('a payment_id, usually "{{payment_id}}"');
function paymentAction<T extends z.ZodRawShape>(extra: T) {
  return z.union([paymentRef, z.strictObject({ payment: paymentRef, ...extra })], {
    error: 'must be a payment_id (string) or an object with payment',
  });
}

/** Each step has exactly one of these keys; it says what the step does. */
const STEP_KINDS = {
  request: requestSchema.describe('A request to the sandbox (public API or any route).'),
  enroll: z.strictObject({ as: variableName, ...enrollSettings }).describe('Enroll another merchant; its key and payee are {{<as>.api_key}}, {{<as>.payee_id}}.'),
  pickup: paymentAction({ payer: z.string().optional() }).describe('Control: P to W with a payer.'),
  pay: paymentAction({ payer: z.string().optional(), paid_currency_code: z.string().optional() }).describe('Control: the payer pays (P/W to A).'),
  fail: paymentAction({ reason: z.string().optional() }).describe('Control: the payment fails (P/W to F).'),
  expire: paymentAction({}).describe('Control: force expiry (P/W to E).'),
  settle: paymentAction({}).describe('Control: settle a paid payment.'),
  settle_all: z.strictObject({}).describe("Control: settle every paid payment of the merchant."),
  advance_clock: z.strictObject({ seconds: z.number().int().positive() }).describe("Move the merchant's sandbox clock forward."),
  set_fault: z
    .strictObject({
      match: z.strictObject({ method: z.string().min(1), path: z.string().min(1).describe('"*" is a wildcard') }),
      fault: z.string().min(1).describe('as in the Sandbox-Fault header: latency=<ms>, error=<status>, error-after-commit=<status>, timeout, drop'),
      probability: z.number().min(0).max(1).optional(),
      times: z.number().int().positive().optional(),
      seed: z.number().int().optional(),
    })
    .describe('Add a fault rule (POST /sandbox/v1/faults).'),
  clear_faults: z.strictObject({ id: z.string().min(1).optional() }).describe('Delete one fault rule, or all of them.'),
  wait_for: z
    .strictObject({
      payment: paymentRef,
      status: z.union([paymentStatus, z.array(paymentStatus).min(1)]),
      within_ms: z.number().int().positive().optional().describe('the bound; default 5000'),
      every_ms: z.number().int().positive().optional().describe('polling interval; default 100'),
    })
    .describe('Poll the status query until payment_status is one of the given statuses, or fail after within_ms.'),
  reset: z.strictObject({}).describe("Erase the merchant's payments, journal and rules; reset its clock."),
} as const;

export type StepKind = keyof typeof STEP_KINDS;
export const STEP_KIND_NAMES = Object.keys(STEP_KINDS) as StepKind[];

/** One object schema per step kind: the common fields plus that kind's key. */
export const stepSchemas = Object.fromEntries(
  STEP_KIND_NAMES.map((kind) => [kind, z.strictObject({ ...stepCommon, [kind]: STEP_KINDS[kind] })]),
) as unknown as { [K in StepKind]: z.ZodObject };

const stepSchema = z.union(STEP_KIND_NAMES.map((kind) => stepSchemas[kind]) as unknown as [z.ZodObject, ...z.ZodObject[]]);

export const scenarioSchema = z
  .strictObject({
    $schema: z.string().optional(),
    name: z.string().min(1).describe('what the flow proves, in a line'),
    description: z.string().optional(),
    merchant: merchantSettingsSchema.optional().describe('settings of the fresh merchant enrolled for this file'),
    vars: z.record(variableName, z.unknown()).optional().describe('variables set before the first step, in order; templates allowed'),
    timeout_ms: z.number().int().positive().optional().describe('default client timeout of every request in this file, ms'),
    steps: z.array(stepSchema).min(1, 'a scenario needs at least one step'),
  })
  .describe('A payreq-sandbox scenario: one flow, replayed by `payreq-sandbox replay`.');

export type Matcher = z.output<typeof matcherSchema>;
export type ValueExpectation = z.output<typeof valueExpectationSchema>;
export type Expectations = z.output<typeof expectSchema>;
export type Captures = z.output<typeof captureSchema>;
export type MerchantSettings = z.output<typeof merchantSettingsSchema>;

export interface StepCommon {
  readonly name?: string;
  readonly as?: string;
  readonly timeout_ms?: number;
  readonly expect?: Expectations;
  readonly capture?: Captures;
}

/** A step after validation: its kind and that kind's value. */
export type Step = StepCommon & { readonly kind: StepKind; readonly spec: unknown };

export interface Scenario {
  readonly name: string;
  readonly description?: string;
  readonly merchant?: MerchantSettings;
  readonly vars?: Readonly<Record<string, unknown>>;
  readonly timeout_ms?: number;
  readonly steps: readonly Step[];
}

/** The JSON Schema of the format, as shipped in scenarios/scenario.schema.json. */
export function scenarioJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(scenarioSchema, { io: 'input' }),
    title: 'payreq-sandbox scenario',
  };
}
