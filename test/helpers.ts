/** Shared test set-up: an in-process sandbox on the memory store, and request helpers. */
import { freshDatabase } from './support/databases.js';
import { createSandbox } from '../src/index.js';
import type { Sandbox, SandboxOptions } from '../src/index.js';

export const DEMO_KEY = 'sk_sandbox_demo_merchant_key';
export const DEMO_PAYEE = 'DEMO-MERCHANT-1';

/**
 * An in-process sandbox without background work. In memory; with SANDBOX_TEST_STORE=postgres, on
 * a fresh database of the run's PostgreSQL instead, so the same tests check the shared store.
 */
export async function memorySandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const store: SandboxOptions = process.env.SANDBOX_TEST_STORE === 'postgres' ? { store: 'postgres', url: await freshDatabase() } : { store: 'memory' };
  return createSandbox({ ...store, scheduler: false, ...options });
}

let counter = 0;
export function uniqueRef(prefix = 'ref'): string {
  counter += 1;
  return `${prefix}-${Date.now()}-${counter}`;
}

export function createBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { payee: DEMO_PAYEE, product_type: 'QR_DYNAMIC', merchant_ref_no: uniqueRef(), amount: 10.5, ...overrides };
}

export function jsonRequest(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Request {
  return new Request(`http://sandbox.test${path}`, {
    method,
    headers: { 'Service-Api-Key': DEMO_KEY, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}
