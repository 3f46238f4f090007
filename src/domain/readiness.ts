/**
 * Go-live readiness (SPEC 16): from what a merchant's integration really did (its requests, its
 * payments, its webhook deliveries), whether it handles what production will throw at it. Pure:
 * the services gather the facts, this judges them.
 */
import { createHash } from 'node:crypto';
import type { Payment, PaymentStatus } from './payment.js';
import { isPublicApiPath } from './public-api.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';

export type CheckStatus = 'pass' | 'fail' | 'not_tried';

export interface ReadinessCheck {
  readonly id: string;
  readonly title: string;
  readonly status: CheckStatus;
  readonly required: boolean;
  /** The requests (by request id, or method, path and time) or payments behind a pass or a fail. */
  readonly evidence: readonly string[];
  /** What to do; present whenever the status is not pass. */
  readonly advice: string | null;
}

/** What the journal and the evidence both say of a request: who, what, and how it was answered. */
export interface RequestLine {
  readonly ref: string;
  readonly method: string;
  readonly path: string;
  readonly alias: boolean;
  readonly status: number | 'dropped' | 'held';
  readonly fault: string | null;
  readonly idempotencyKey: string | null;
}

/**
 * One request of the integration, as the readiness evidence keeps it (slim, beyond the
 * journal's bound): what the checks read of it and no more. `seenRequestOf` makes one.
 */
export interface SeenRequest extends RequestLine {
  /** When it was sent (real ms). */
  readonly at: number;
  /** When it was answered (real ms). */
  readonly answeredAt: number;
  /** Of a create's body: its merchant_ref_no and amount, and whether it carried a `sign`. */
  readonly merchantRefNo: string | null;
  readonly amount: number | null;
  readonly signed: boolean;
  /** Of a refused request (402): a digest of its body, which tells a repeat of the same request. */
  readonly bodyDigest: string | null;
  /** Of the answer: payment_id (a create, a duplicate merchant_ref_no), payment_status (a status read). */
  readonly paymentId: string | null;
  readonly paymentStatus: string | null;
  /** Of a 429: the seconds its Retry-After asked for. */
  readonly retryAfterSeconds: number | null;
  /** A 402 that said the same Idempotency-Key is still in progress: a retry SPEC 16 asks for, not a refusal. */
  readonly inProgress?: boolean;
}

/** The words of the 402 that answers a repeat of a keyed request still running (http/middleware/idempotency.ts). */
export const STILL_IN_PROGRESS = 'is still in progress: retry later';

/** A request as the journal records it, bodies as text; `at` is when it was answered. */
export interface AnsweredRequest extends RequestLine {
  readonly at: number;
  readonly latencyMs: number;
  readonly requestBody: string | null;
  readonly responseBody: string | null;
  /** What the handler said of a clean 200 (a create, a status read): then neither body is parsed. */
  readonly answered?: AnsweredFacts | null;
}

/** The facts a handler hands the evidence so that the hot paths (create, status polling) parse nothing. */
export interface AnsweredFacts {
  readonly paymentId?: string;
  readonly paymentStatus?: string;
  readonly merchantRefNo?: string;
  readonly amount?: number;
  readonly signed?: boolean;
}

export interface SeenDelivery {
  readonly eventId: string;
  readonly state: 'pending' | 'delivered' | 'failed';
  readonly statuses: readonly (number | null)[];
}

export interface ReadinessFacts {
  readonly requests: readonly SeenRequest[];
  readonly payments: readonly Payment[];
  readonly deliveries: readonly SeenDelivery[];
  readonly webhookUrl: string | null;
  readonly requireSignature: boolean;
}

const CREATE = /^\/(?:openapi\/)?v1\/payments\/payment$/;
const STATUS_READ = /^\/(?:openapi\/)?v1\/payments\/payment\/([^/]+)$/;
const LOST = /\b(timeout|drop|error-after-commit=\d+)\b/;


const isCreate = (r: { method: string; path: string }) => r.method === 'POST' && CREATE.test(r.path);
const readOf = (r: SeenRequest) => (r.method === 'GET' && r.status === 200 ? STATUS_READ.exec(r.path)?.[1] : undefined);
/** The payment a create made: answered 200, or committed and then its answer lost to a fault. */
const createdId = (r: SeenRequest) => (isCreate(r) && r.paymentId !== null && (r.status === 200 || (r.fault !== null && LOST.test(r.fault))) ? r.paymentId : undefined);

/** What the checks read of a request: its bodies are parsed only where a check looks into them. */
export function seenRequestOf(r: AnsweredRequest): SeenRequest {
  const create = isCreate(r);
  // Creates and status polls are the hot paths: for a clean 200 the handler said what they were.
  // A create the handler answered has committed, whatever a fault did to its answer after.
  const told = (r.status === 200 && r.fault === null) || (create && r.answered) ? (r.answered ?? null) : null;
  const sent = told === null && (create || r.status === 402) ? objectOf(r.requestBody) : null;
  const readsAnswer = told === null && (r.status === 402 || r.status === 429 || (r.status === 200 && (create || (r.method === 'GET' && STATUS_READ.test(r.path)))));
  const answer = readsAnswer ? objectOf(r.responseBody) : null;
  return {
    ref: r.ref,
    at: r.at - r.latencyMs,
    answeredAt: r.at,
    method: r.method,
    path: r.path,
    alias: r.alias,
    status: r.status,
    fault: r.fault,
    idempotencyKey: r.idempotencyKey,
    merchantRefNo: !create ? null : told ? (told.merchantRefNo ?? null) : typeof sent?.merchant_ref_no === 'string' ? sent.merchant_ref_no : null,
    amount: !create ? null : told ? (told.amount ?? null) : typeof sent?.amount === 'number' ? sent.amount : null,
    signed: create && (told ? told.signed === true : typeof sent?.sign === 'string'),
    // JSON.stringify of the parsed body: the same request sent with other spacing is the same request.
    bodyDigest: r.status === 402 ? createHash('sha256').update(sent === null ? (r.requestBody ?? '') : JSON.stringify(sent)).digest('base64url').slice(0, 16) : null,
    paymentId: told ? (told.paymentId ?? null) : typeof answer?.payment_id === 'string' ? answer.payment_id : null,
    paymentStatus: told ? (told.paymentStatus ?? null) : typeof answer?.payment_status === 'string' ? answer.payment_status : null,
    ...(r.status === 402 && r.idempotencyKey !== null && String(answer?.description ?? '').includes(STILL_IN_PROGRESS) ? { inProgress: true } : {}),
    retryAfterSeconds: r.status === 429 ? Number(/retry after (\d+) s/.exec(String(answer?.description ?? ''))?.[1] ?? 1) : null,
  };
}

/**
 * Whether a request can serve as evidence: calls of the public API, refusals (402), rate
 * limits (429), and requests that carry an Idempotency-Key. (What is sent before a 429's
 * Retry-After counts too; the caller knows when that is.)
 */
export function isEvidence(r: SeenRequest): boolean {
  return isPublicApiPath(r.path) || r.status === 402 || r.status === 429 || r.idempotencyKey !== null;
}

/**
 * A plain status read names what it read and was answered: a polling loop repeats the same
 * one, and of such repeats only the first and the last tell the checks anything. Null for
 * every other request.
 */
export function repeatKeyOf(r: SeenRequest): string | null {
  return r.method === 'GET' && r.status === 200 && r.fault === null && r.idempotencyKey === null && STATUS_READ.test(r.path) ? `${r.path} ${r.paymentStatus}` : null;
}

function objectOf(text: string | null): Record<string, unknown> | null {
  // A body refused for its depth is not parsed here either: parsing it would cost what the refusal saved.
  if (!text || nestsDeeperThan(text, MAX_JSON_DEPTH)) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function check(id: string, title: string, required: boolean, status: CheckStatus, evidence: readonly string[], advice: string): ReadinessCheck {
  return { id, title, required, status, evidence, advice: status === 'pass' ? null : advice };
}

export function judgeReadiness(facts: ReadinessFacts): { ready: boolean; checks: ReadinessCheck[] } {
  const { requests } = facts;
  const byRef = new Map(facts.payments.map((p) => [p.merchantRefNo, p]));
  const reads = requests.filter((r) => readOf(r) !== undefined);
  const readAfter = (paymentId: string, at: number, status?: PaymentStatus) =>
    reads.find((r) => readOf(r) === paymentId && r.at >= at && (status === undefined || r.paymentStatus === status));

  const checks: ReadinessCheck[] = [];
  const creates = requests.filter((r) => createdId(r) !== undefined);
  checks.push(
    check('create', 'The integration creates a payment.', true, creates.length > 0 ? 'pass' : 'not_tried', creates.slice(0, 3).map((r) => r.ref),
      'Create a payment with POST /openapi/v1/payments/payment.'),
  );

  const polled = creates.map((c) => readAfter(createdId(c)!, c.at)).filter((r) => r !== undefined);
  // A fail names the creates whose payment was never read.
  const unread = creates.slice(0, 3).map((c) => `${c.ref} created ${createdId(c)!}, never read after`);
  checks.push(
    check('poll-status', 'The integration reads the status of a payment it created.', true, polled.length > 0 ? 'pass' : creates.length > 0 ? 'fail' : 'not_tried',
      polled.length > 0 ? polled.slice(0, 3).map((r) => r.ref) : unread,
      'After a create, read GET /openapi/v1/payments/payment/{payment_id} until the status is final: the answer to create only says the payment exists.'),
  );

  const outcomes: readonly [string, string, PaymentStatus, string | null, boolean][] = [
    ['outcome-paid', 'paid (A)', 'A', null, true],
    ['outcome-expired', 'expired (E)', 'E', null, true],
    ['outcome-failed', 'failed (F)', 'F', null, true],
    ['outcome-cancelled', 'cancelled before payment (V)', 'V', 'cancelled', true],
    ['outcome-voided', 'voided after payment (V)', 'V', 'voided', false],
  ];
  for (const [id, what, status, event, required] of outcomes) {
    // Reached at some point (a paid payment may be voided since), and read while in that state.
    const reached = facts.payments.filter((p) => p.history.some((e) => e.to === status && (event === null || e.type === event)));
    const seen = reached.map((p) => readAfter(p.id, 0, status)).find((r) => r !== undefined);
    checks.push(
      check(id, `A payment ${what} is read by the integration, which then knows its outcome.`, required, seen ? 'pass' : reached.length > 0 ? 'fail' : 'not_tried',
        seen ? [seen.ref] : reached.slice(0, 3).map((p) => `payment ${p.id}`),
        reached.length > 0
          ? `Payment ${reached[0]!.id} reached ${status} but the integration never read it in that state: poll its status until it is final.`
          : `Drive a payment to ${what} (control API or magic values) and let the integration read it.`),
    );
  }

  checks.push(interruptedCreate(requests, byRef));
  checks.push(refusedTransition(requests));
  checks.push(rateLimit(requests));

  const signed = requests.filter((r) => isCreate(r) && r.signed);
  const signedOk = signed.filter((r) => r.status === 200);
  checks.push(
    check('signature', 'A signed create is accepted.', facts.requireSignature, signedOk.length > 0 ? 'pass' : signed.length > 0 ? 'fail' : 'not_tried',
      (signedOk.length > 0 ? signedOk : signed).slice(0, 3).map((r) => r.ref),
      'Sign creates (sign_type SHA512, sign): a 401 carries string_to_sign and signature_hint to show what differs.'),
  );

  const delivered = facts.deliveries.filter((d) => d.state === 'delivered');
  checks.push(
    // Deliveries exist only while a URL is set or a listener (payreq-sandbox listen) forwards them.
    check('webhook', 'A webhook delivery (to the URL set, or through payreq-sandbox listen) was answered 2xx.', false,
      delivered.length > 0 ? 'pass' : facts.deliveries.length > 0 ? 'fail' : 'not_tried',
      delivered.length > 0 ? delivered.slice(0, 3).map((d) => `delivery of ${d.eventId}`) : facts.deliveries.slice(0, 3).map((d) => `delivery of ${d.eventId}: ${d.state}, ${d.statuses.length > 0 ? `answered ${d.statuses.map((x) => x ?? 'nothing').join(', ')}` : 'not attempted yet'}`),
      facts.webhookUrl ? 'Answer deliveries with a 2xx quickly; POST /sandbox/v1/webhook/test sends a sample.' : 'Set a URL with PUT /sandbox/v1/webhook (or run payreq-sandbox listen) and answer deliveries with a 2xx.'),
  );

  const byEvent = new Map<string, SeenDelivery[]>();
  for (const d of facts.deliveries) byEvent.set(d.eventId, [...(byEvent.get(d.eventId) ?? []), d]);
  const duplicated = [...byEvent.values()].filter((ds) => ds.length > 1);
  const bothAnswered = duplicated.filter((ds) => ds.every((d) => d.state === 'delivered'));
  checks.push(
    check('webhook-duplicate', 'A delivery sent twice (same event_id) is answered 2xx both times.', false,
      bothAnswered.length > 0 ? 'pass' : duplicated.length > 0 ? 'fail' : 'not_tried',
      (bothAnswered.length > 0 ? bothAnswered : duplicated).slice(0, 3).map((ds) => `event ${ds[0]!.eventId}`),
      'Answer a repeated event_id with 2xx and do nothing the second time; PUT /sandbox/v1/webhook {"faults": {"duplicate": 1}} rehearses it.'),
  );

  const aliased = requests.filter((r) => r.alias);
  checks.push(
    check('production-path', 'Every call uses the documented /openapi/v1 path.', true,
      aliased.length > 0 ? 'fail' : requests.length > 0 ? 'pass' : 'not_tried',
      aliased.length > 0 ? aliased.slice(0, 3).map((r) => r.ref) : requests.length > 0 ? [`${requests.length} requests, every one under /openapi/v1 or /sandbox`] : [],
      'Call /openapi/v1/payments/payment...: production may not serve the /v1 alias.'),
  );

  return { ready: checks.every((c) => !c.required || c.status === 'pass'), checks };
}

/** After a create whose answer was lost, the outcome was learned, and no second payment made for it. */
function interruptedCreate(requests: readonly SeenRequest[], byRef: ReadonlyMap<string, Payment>): ReadinessCheck {
  const lost = requests.filter((r) => isCreate(r) && r.fault !== null && LOST.test(r.fault));
  const advice =
    'When a create gets no answer, learn its outcome before anything else: read the payment, send the same merchant_ref_no again (402 names the existing payment_id) or retry with the same Idempotency-Key; never create it again under a new merchant_ref_no.';
  if (lost.length === 0) return check('interrupted-create', 'A create whose answer was lost is recovered without a second payment.', true, 'not_tried', [], `${advice} Rehearse it with Sandbox-Fault: timeout (or amount 900.03) on a create.`);
  const failures: string[] = [];
  const passes: string[] = [];
  for (const r of lost) {
    const ref = r.merchantRefNo ?? undefined;
    const payment = ref === undefined ? undefined : byRef.get(ref);
    const later = requests.filter((x) => x.at >= r.at && x !== r);
    const recovered = later.find(
      (x) =>
        (payment !== undefined && readOf(x) === payment.id) ||
        (isCreate(x) && ref !== undefined && x.merchantRefNo === ref) ||
        (r.idempotencyKey !== null && x.idempotencyKey === r.idempotencyKey),
    );
    // A second payment: before learning the outcome, a create that succeeded under another
    // merchant_ref_no for the same amount (the blind retry). Orders created after recovery are new orders.
    const beforeRecovery = recovered ? later.slice(0, later.indexOf(recovered)) : later;
    const second = beforeRecovery.find(
      (x) => createdId(x) !== undefined && x.merchantRefNo !== (ref ?? null) && x.amount === r.amount,
    );
    if (second) failures.push(`${r.ref} lost, then ${second.ref} created another payment (merchant_ref_no ${JSON.stringify(second.merchantRefNo)})`);
    else if (!recovered) failures.push(`${r.ref} lost and never followed up`);
    else passes.push(`${r.ref} lost, recovered by ${recovered.ref}`);
  }
  return check('interrupted-create', 'A create whose answer was lost is recovered without a second payment.', true, failures.length > 0 ? 'fail' : 'pass', failures.length > 0 ? failures : passes, advice);
}

/** A refused transition (402) is not retried more than twice with the same request. */
function refusedTransition(requests: readonly SeenRequest[]): ReadinessCheck {
  // The duplicate merchant_ref_no 402 of a recovering create carries payment_id: it is not a refusal to learn from.
  // Nor is the 402 of a keyed retry sent while the first is still running: SPEC 16 asks for that retry.
  const refused = requests.filter((r) => r.status === 402 && r.paymentId === null && r.inProgress !== true);
  const counts = new Map<string, SeenRequest[]>();
  for (const r of refused) {
    const key = `${r.method} ${r.path} ${r.bodyDigest}`;
    counts.set(key, [...(counts.get(key) ?? []), r]);
  }
  const hammered = [...counts.values()].filter((rs) => rs.length > 3);
  const title = 'A refused transition (402) is not retried more than twice with the same request.';
  const advice = 'A 402 names the current state: read the payment and decide (for example void a paid payment instead of cancelling it), do not repeat the same request.';
  if (refused.length === 0) return check('refused-transition', title, true, 'not_tried', [], `${advice} Rehearse it: cancel a paid payment.`);
  return check('refused-transition', title, true, hammered.length > 0 ? 'fail' : 'pass',
    hammered.length > 0 ? hammered.map((rs) => `${rs.length} times ${rs[0]!.method} ${rs[0]!.path}`) : refused.slice(0, 3).map((r) => r.ref), advice);
}

/** After a 429, nothing is sent before its Retry-After. */
function rateLimit(requests: readonly SeenRequest[]): ReadinessCheck {
  const limited = requests.filter((r) => r.status === 429);
  const title = 'After a 429, the integration waits for Retry-After before it sends again.';
  const advice = 'On 429, wait the seconds of Retry-After before the next request (of any kind).';
  if (limited.length === 0) return check('rate-limit', title, false, 'not_tried', [], `${advice} Rehearse it with a merchant enrolled with rate_limit_per_second.`);
  const early: string[] = [];
  for (const r of limited) {
    const wait = r.retryAfterSeconds ?? 1;
    // Sent after the 429 was answered and before its Retry-After passed (requests of the same burst do not count).
    // (Times are whole ms less a measured latency: 2 ms of slack keeps a concurrent burst out.)
    const next = requests.find((x) => x.at > r.answeredAt + 2 && x.at < r.answeredAt + wait * 1000);
    if (next) early.push(`${next.ref} sent ${Math.round(next.at - r.answeredAt)} ms after the 429 of ${r.ref}, which asked for ${wait} s`);
  }
  return check('rate-limit', title, false, early.length > 0 ? 'fail' : 'pass', early.length > 0 ? early.slice(0, 5) : limited.slice(0, 3).map((r) => r.ref), advice);
}
