/**
 * Go-live readiness (SPEC 16): from what a merchant's integration really did (its requests, its
 * payments, its webhook deliveries), whether it handles what production will throw at it. Pure:
 * the services gather the facts, this judges them.
 */
import type { Payment, PaymentStatus } from './payment.js';

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

/** One request of the integration, oldest first, as the journal kept it (bodies parsed). */
export interface SeenRequest {
  readonly ref: string;
  /** When it was sent (real ms). */
  readonly at: number;
  /** When it was answered (real ms). */
  readonly answeredAt: number;
  readonly method: string;
  readonly path: string;
  readonly alias: boolean;
  readonly status: number | 'dropped';
  readonly fault: string | null;
  readonly idempotencyKey: string | null;
  readonly requestBody: Record<string, unknown> | null;
  readonly responseBody: Record<string, unknown> | null;
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

const isCreate = (r: SeenRequest) => r.method === 'POST' && CREATE.test(r.path);
const readOf = (r: SeenRequest) => (r.method === 'GET' && r.status === 200 ? STATUS_READ.exec(r.path)?.[1] : undefined);
const createdId = (r: SeenRequest) => (isCreate(r) && r.status === 200 && typeof r.responseBody?.payment_id === 'string' ? r.responseBody.payment_id : undefined);

function check(id: string, title: string, required: boolean, status: CheckStatus, evidence: readonly string[], advice: string): ReadinessCheck {
  return { id, title, required, status, evidence, advice: status === 'pass' ? null : advice };
}

export function judgeReadiness(facts: ReadinessFacts): { ready: boolean; checks: ReadinessCheck[] } {
  const { requests } = facts;
  const byRef = new Map(facts.payments.map((p) => [p.merchantRefNo, p]));
  const reads = requests.filter((r) => readOf(r) !== undefined);
  const readAfter = (paymentId: string, at: number, status?: PaymentStatus) =>
    reads.find((r) => readOf(r) === paymentId && r.at >= at && (status === undefined || r.responseBody?.payment_status === status));

  const checks: ReadinessCheck[] = [];
  const creates = requests.filter((r) => createdId(r) !== undefined);
  checks.push(
    check('create', 'The integration creates a payment.', true, creates.length > 0 ? 'pass' : 'not_tried', creates.slice(0, 3).map((r) => r.ref),
      'Create a payment with POST /openapi/v1/payments/payment.'),
  );

  const polled = creates.map((c) => readAfter(createdId(c)!, c.at)).filter((r) => r !== undefined);
  checks.push(
    check('poll-status', 'The integration reads the status of a payment it created.', true, polled.length > 0 ? 'pass' : creates.length > 0 ? 'fail' : 'not_tried',
      polled.slice(0, 3).map((r) => r.ref),
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

  const signed = requests.filter((r) => isCreate(r) && typeof r.requestBody?.sign === 'string');
  const signedOk = signed.filter((r) => r.status === 200);
  checks.push(
    check('signature', 'A signed create is accepted.', facts.requireSignature, signedOk.length > 0 ? 'pass' : signed.length > 0 ? 'fail' : 'not_tried',
      (signedOk.length > 0 ? signedOk : signed).slice(0, 3).map((r) => r.ref),
      'Sign creates (sign_type SHA512, sign): a 401 carries string_to_sign and signature_hint to show what differs.'),
  );

  const delivered = facts.deliveries.filter((d) => d.state === 'delivered');
  checks.push(
    check('webhook', 'A webhook URL is set and a delivery to it was answered 2xx.', false,
      delivered.length > 0 ? 'pass' : facts.webhookUrl && facts.deliveries.length > 0 ? 'fail' : 'not_tried',
      delivered.slice(0, 3).map((d) => `delivery of ${d.eventId}`),
      facts.webhookUrl ? 'Answer deliveries with a 2xx quickly; POST /sandbox/v1/webhook/test sends a sample.' : 'Set a URL with PUT /sandbox/v1/webhook and answer deliveries with a 2xx.'),
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
    const ref = typeof r.requestBody?.merchant_ref_no === 'string' ? r.requestBody.merchant_ref_no : undefined;
    const payment = ref === undefined ? undefined : byRef.get(ref);
    const later = requests.filter((x) => x.at >= r.at && x !== r);
    const recovered = later.find(
      (x) =>
        (payment !== undefined && readOf(x) === payment.id) ||
        (isCreate(x) && ref !== undefined && x.requestBody?.merchant_ref_no === ref) ||
        (r.idempotencyKey !== null && x.idempotencyKey === r.idempotencyKey),
    );
    // A second payment: before learning the outcome, a create that succeeded under another
    // merchant_ref_no for the same amount (the blind retry). Orders created after recovery are new orders.
    const beforeRecovery = recovered ? later.slice(0, later.indexOf(recovered)) : later;
    const second = beforeRecovery.find(
      (x) => createdId(x) !== undefined && x.requestBody?.merchant_ref_no !== ref && x.requestBody?.amount === r.requestBody?.amount,
    );
    if (second) failures.push(`${r.ref} lost, then ${second.ref} created another payment (merchant_ref_no ${JSON.stringify(second.requestBody?.merchant_ref_no)})`);
    else if (!recovered) failures.push(`${r.ref} lost and never followed up`);
    else passes.push(`${r.ref} lost, recovered by ${recovered.ref}`);
  }
  return check('interrupted-create', 'A create whose answer was lost is recovered without a second payment.', true, failures.length > 0 ? 'fail' : 'pass', failures.length > 0 ? failures : passes, advice);
}

/** A refused transition (402) is not retried more than twice with the same request. */
function refusedTransition(requests: readonly SeenRequest[]): ReadinessCheck {
  // The duplicate merchant_ref_no 402 of a recovering create carries payment_id: it is not a refusal to learn from.
  const refused = requests.filter((r) => r.status === 402 && r.responseBody?.payment_id === undefined);
  const counts = new Map<string, SeenRequest[]>();
  for (const r of refused) {
    const key = `${r.method} ${r.path} ${JSON.stringify(r.requestBody)}`;
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
    const wait = Number(/retry after (\d+) s/.exec(String(r.responseBody?.description ?? ''))?.[1] ?? 1);
    // Sent after the 429 was answered and before its Retry-After passed (requests of the same burst do not count).
    // (Times are whole ms less a measured latency: 2 ms of slack keeps a concurrent burst out.)
    const next = requests.find((x) => x.at > r.answeredAt + 2 && x.at < r.answeredAt + wait * 1000);
    if (next) early.push(`${next.ref} sent ${Math.round(next.at - r.answeredAt)} ms after the 429 of ${r.ref}, which asked for ${wait} s`);
  }
  return check('rate-limit', title, false, early.length > 0 ? 'fail' : 'pass', early.length > 0 ? early.slice(0, 5) : limited.slice(0, 3).map((r) => r.ref), advice);
}
