/** What each step kind sends: the sandbox actions are control-API calls with a known shape. */
import type { StepKind } from './schema.js';

export interface PlannedRequest {
  readonly method: string;
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean>>;
  readonly headers?: Readonly<Record<string, string | null>>;
  /** A JSON value to send; undefined sends no body. */
  readonly json?: unknown;
  readonly raw?: string;
}

const PAYMENT_ACTIONS = ['pickup', 'pay', 'fail', 'expire', 'settle'] as const;
type PaymentActionKind = (typeof PAYMENT_ACTIONS)[number];

const PUBLIC_STATUS_PATH = '/openapi/v1/payments/payment/';

function isPaymentAction(kind: StepKind): kind is PaymentActionKind {
  return (PAYMENT_ACTIONS as readonly string[]).includes(kind);
}

function paymentPath(id: unknown): string {
  return encodeURIComponent(String(id));
}

/** The payment a payment action (or wait_for) is about, and the rest of its body. */
function splitPaymentSpec(spec: unknown): { payment: string; rest: Record<string, unknown> } {
  if (typeof spec === 'string') return { payment: spec, rest: {} };
  const { payment, ...rest } = spec as { payment: unknown } & Record<string, unknown>;
  return { payment: String(payment), rest };
}

/** The request a step sends (wait_for sends the status query, repeatedly). `spec` is rendered. */
export function planRequest(kind: StepKind, spec: unknown): PlannedRequest {
  if (isPaymentAction(kind)) {
    const { payment, rest } = splitPaymentSpec(spec);
    return { method: 'POST', path: `/sandbox/v1/payments/${paymentPath(payment)}/${kind}`, json: rest };
  }
  const s = spec as Record<string, unknown>;
  switch (kind) {
    case 'request': {
      const r = s as { method: string; path: string; query?: PlannedRequest['query']; headers?: PlannedRequest['headers']; body?: unknown; raw_body?: string };
      return {
        method: r.method.toUpperCase(),
        path: r.path,
        ...(r.query ? { query: r.query } : {}),
        ...(r.headers ? { headers: r.headers } : {}),
        ...('body' in r ? { json: r.body } : {}),
        ...(r.raw_body !== undefined ? { raw: r.raw_body } : {}),
      };
    }
    case 'enroll': {
      const { as: _alias, ...settings } = s;
      return { method: 'POST', path: '/sandbox/v1/merchants', json: settings };
    }
    case 'settle_all':
      return { method: 'POST', path: '/sandbox/v1/settle', json: {} };
    case 'advance_clock':
      return { method: 'POST', path: '/sandbox/v1/clock/advance', json: s };
    case 'set_fault':
      return { method: 'POST', path: '/sandbox/v1/faults', json: s };
    case 'clear_faults':
      return { method: 'DELETE', path: s.id === undefined ? '/sandbox/v1/faults' : `/sandbox/v1/faults/${encodeURIComponent(String(s.id))}` };
    case 'reset':
      return { method: 'POST', path: '/sandbox/v1/reset', json: {} };
    case 'wait_for':
      return { method: 'GET', path: `${PUBLIC_STATUS_PATH}${paymentPath(s.payment)}` };
    default:
      throw new Error(`no request for step kind ${kind}`);
  }
}

/** The name a step shows when it has none, from its spec as written (templates unrendered). */
export function defaultStepName(kind: StepKind, spec: unknown): string {
  if (kind === 'request') {
    const r = spec as { method: string; path: string };
    return `${r.method.toUpperCase()} ${r.path}`;
  }
  if (isPaymentAction(kind)) return `${kind} ${splitPaymentSpec(spec).payment}`;
  const s = spec as Record<string, unknown>;
  switch (kind) {
    case 'enroll':
      return `enroll merchant ${String(s.as)}`;
    case 'advance_clock':
      return `advance the clock ${String(s.seconds)} s`;
    case 'set_fault': {
      const match = s.match as { method: string; path: string };
      return `fault ${String(s.fault)} on ${match.method} ${match.path}`;
    }
    case 'clear_faults':
      return s.id === undefined ? 'clear every fault rule' : `clear fault rule ${String(s.id)}`;
    case 'wait_for':
      return `wait until ${String(s.payment)} is ${[s.status].flat().join(' or ')}`;
    default:
      return kind.replace('_', ' ');
  }
}
