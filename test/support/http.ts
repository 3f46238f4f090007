/** HTTP helpers for in-process tests: answers with their raw text, the envelope check, a fixed clock. */
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type { RunningServer, Sandbox } from '../../src/index.js';
import { DEMO_KEY, DEMO_PAYEE, createBody, memorySandbox } from '../helpers.js';

export { DEMO_KEY, DEMO_PAYEE, createBody, memorySandbox };

export const SIGNED_KEY = 'sk_sandbox_demo_signed_key';
export const SIGNED_PAYEE = 'DEMO-MERCHANT-SIGNED';
export const SIGNED_SALT = 'demo-signing-salt';
export const PREFIXES = ['/openapi/v1', '/v1'] as const;

/** A sandbox time that only moves when a test moves it: 2030-01-15 10:00 UTC. */
export function manualClock(start = Date.UTC(2030, 0, 15, 10, 0, 0)) {
  const state = { now: start };
  return { clock: () => state.now, get now() { return state.now; }, advance(ms: number) { state.now += ms; } };
}

/** A memory sandbox on a fixed clock, without background work: every change comes from a request. */
export function quietSandbox(options: Parameters<typeof memorySandbox>[0] = {}): Promise<Sandbox> {
  return memorySandbox({ clock: manualClock().clock, ...options });
}

/**
 * A fresh memory sandbox on a manual clock for each test of the enclosing describe (or file),
 * closed after it. Read it as `each.sandbox`, `each.clock`.
 */
export function sandboxPerTest(start?: number): { readonly sandbox: Sandbox; readonly clock: ReturnType<typeof manualClock> } {
  const each = {} as { sandbox: Sandbox; clock: ReturnType<typeof manualClock> };
  beforeEach(async () => {
    each.clock = manualClock(start);
    each.sandbox = await memorySandbox({ clock: each.clock.clock });
  });
  afterEach(() => each.sandbox.close());
  return each;
}

/**
 * A memory sandbox listening on a free port of 127.0.0.1 for the tests of the enclosing
 * describe (or file): opened before them, closed after them. Read it as `live.sandbox`, `live.server`.
 */
export function listeningSandbox(options: Parameters<typeof memorySandbox>[0] = {}): { readonly sandbox: Sandbox; readonly server: RunningServer } {
  const live = {} as { sandbox: Sandbox; server: RunningServer };
  beforeAll(async () => {
    live.sandbox = await memorySandbox(options);
    live.server = await live.sandbox.listen(0, '127.0.0.1');
  });
  afterAll(() => live.sandbox.close());
  return live;
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: any;
}

export async function toAnswer(response: Response): Promise<Answer> {
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

export interface CallOptions {
  readonly key?: string | null;
  readonly headers?: Record<string, string>;
  /** A string is sent as-is; anything else as JSON. */
  readonly body?: unknown;
  readonly contentType?: string | null;
}

/** One request through sandbox.fetch; `key: null` sends no Service-Api-Key. */
export async function call(sandbox: Sandbox, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? DEMO_KEY : options.key;
  if (key !== null) headers['Service-Api-Key'] = key;
  const hasBody = options.body !== undefined;
  const contentType = options.contentType === undefined ? (hasBody ? 'application/json' : null) : options.contentType;
  if (contentType !== null) headers['Content-Type'] = contentType;
  Object.assign(headers, options.headers);
  const init: RequestInit = { method, headers };
  if (hasBody) init.body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  return toAnswer(await sandbox.fetch(new Request(`http://sandbox.test${path}`, init)));
}

/** A stack trace, a source path or an exception name must never reach a client. */
const LEAKS = [/\bat [\w.<>]+ \((?:file:|node:|\/)/, /\.(?:ts|js):\d+/, /node_modules/, /\bTypeError\b/, /\bSyntaxError:/, /\bZodError\b/, /\/src\//];

/** The answer is the {code, description} envelope with this code, and the HTTP status mirrors it. */
export function expectEnvelope(answer: Answer, code: number): void {
  expect(answer.status, answer.text).toBe(code);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(answer.body, answer.text).toBeTypeOf('object');
  expect(answer.body.code).toBe(code);
  expect(answer.body.description).toBeTypeOf('string');
  expect(answer.body.description.length).toBeGreaterThan(10);
  for (const leak of LEAKS) expect(answer.text).not.toMatch(leak);
}

export async function createPayment(sandbox: Sandbox, overrides: Record<string, unknown> = {}, options: { prefix?: string; key?: string } = {}) {
  const answer = await call(sandbox, 'POST', `${options.prefix ?? '/openapi/v1'}/payments/payment`, {
    key: options.key ?? DEMO_KEY,
    body: createBody(overrides),
  });
  expectEnvelope(answer, 200);
  return answer.body as { payment_id: string; payment_code: string; payment_token: string; qr_data: Record<string, unknown>; metadata: unknown };
}

export async function statusOf(sandbox: Sandbox, paymentId: string, key = DEMO_KEY) {
  const answer = await call(sandbox, 'GET', `/openapi/v1/payments/payment/${paymentId}`, { key });
  expectEnvelope(answer, 200);
  return answer.body;
}

export async function control(sandbox: Sandbox, paymentId: string, action: string, body?: unknown, key = DEMO_KEY): Promise<Answer> {
  return call(sandbox, 'POST', `/sandbox/v1/payments/${paymentId}/${action}`, { key, ...(body === undefined ? {} : { body }) });
}

export async function enroll(sandbox: Sandbox, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const answer = await call(sandbox, 'POST', '/sandbox/v1/merchants', { key: null, body, headers });
  expectEnvelope(answer, 200);
  return answer.body as { api_key: string; payee_id: string; signing_salt: string; home_currency: string };
}

/**
 * Everything a request could change, as text: the merchants, each merchant's clock, payments
 * (newest first) and every payment's history. Equal before and after means nothing changed.
 */
export async function stateOf(sandbox: Sandbox, keys: readonly string[] = [DEMO_KEY]): Promise<string> {
  const parts: string[] = [`merchants=${(await sandbox.services.store.merchantIds()).length}`];
  for (const key of keys) {
    const clock = await call(sandbox, 'GET', '/sandbox/v1/clock', { key });
    // The offset is the state a request can change; `now` moves with real time (a slow run crosses a second).
    parts.push(`clock offset=${clock.body.offset_seconds}`);
    for (let offset = 0; ; offset += 100) {
      const page = await call(sandbox, 'GET', `/sandbox/v1/payments?limit=100&offset=${offset}`, { key });
      expect(page.status).toBe(200);
      parts.push(page.text);
      for (const p of page.body.payments as { payment_id: string }[]) {
        parts.push((await call(sandbox, 'GET', `/sandbox/v1/payments/${p.payment_id}/events`, { key })).text);
      }
      if (offset + 100 >= page.body.total) break;
    }
  }
  return parts.join('\n');
}

/** An id in the documented format that no merchant has. */
export function unknownPaymentId(): string {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let id = 'pay_';
  for (let i = 0; i < 22; i++) id += alphabet[Math.floor(Math.random() * alphabet.length)];
  return id;
}

/** Sends a request that must be refused: the envelope with `code`, and the sandbox state unchanged. */
export async function expectRefusedUnchanged(
  sandbox: Sandbox,
  method: string,
  path: string,
  options: CallOptions,
  code: number,
  mentions?: RegExp,
  keys: readonly string[] = [DEMO_KEY],
): Promise<Answer> {
  const before = await stateOf(sandbox, keys);
  const answer = await call(sandbox, method, path, options);
  expectEnvelope(answer, code);
  if (mentions) expect(answer.body.description).toMatch(mentions);
  expect(await stateOf(sandbox, keys)).toBe(before);
  return answer;
}

export interface PaymentsInEachState {
  P: string;
  W: string;
  A: string;
  settled: string;
  V: string;
  E: string;
  F: string;
}

/** One payment in each state a route acts on, for tests that try every route on every state. */
export async function paymentsInEachState(sandbox: Sandbox): Promise<PaymentsInEachState> {
  const P = (await createPayment(sandbox)).payment_id;
  const W = (await createPayment(sandbox, { payer: 'waiting-payer' })).payment_id;
  const A = (await createPayment(sandbox, { payer: 'PAYER_PAYS' })).payment_id;
  const settled = (await createPayment(sandbox, { payer: 'PAYER_PAYS' })).payment_id;
  await control(sandbox, settled, 'settle');
  const V = (await createPayment(sandbox)).payment_id;
  await call(sandbox, 'POST', `/openapi/v1/payments/payment/${V}/cancel`, { body: { reason: 'setup' } });
  const E = (await createPayment(sandbox)).payment_id;
  await control(sandbox, E, 'expire');
  const F = (await createPayment(sandbox, { payer: 'PAYER_DECLINES' })).payment_id;
  return { P, W, A, settled, V, E, F };
}
