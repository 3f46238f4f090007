/**
 * Same seed, same sandbox: two `serve --seed 42 --memory` processes given the same calls, enrolments
 * included, generate the same merchant names and payers; another seed generates others.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_KEY, DEMO_PAYEE } from './helpers.js';
import { serversPerTest } from './support/processes.js';

const servers = serversPerTest();

async function call(url: string, method: string, path: string, key: string | null, body?: unknown): Promise<Record<string, any>> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (key) headers['Service-Api-Key'] = key;
  const answer = await fetch(`${url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const json = (await answer.json()) as Record<string, any>;
  if (answer.status !== 200) throw new Error(`${method} ${path} answered ${answer.status}: ${json.description}`);
  return json;
}

/** The same calls on a sandbox: enrolments, then for each merchant two payments picked up by generated payers and paid. Answers what was generated. */
async function sameCalls(url: string): Promise<string[]> {
  const merchants = [{ key: DEMO_KEY, payee: DEMO_PAYEE }];
  for (const body of [{}, { home_currency: 'EUR' }, { city: 'Penang' }, { name: 'Named Shop' }]) {
    const enrolled = await call(url, 'POST', '/sandbox/v1/merchants', null, body);
    merchants.push({ key: enrolled.api_key as string, payee: enrolled.payee_id as string });
  }
  const generated: string[] = [];
  for (const { key, payee } of merchants) {
    const own = await call(url, 'GET', '/sandbox/v1/merchant', key);
    generated.push(`merchant ${own.name}, ${own.city}`);
    for (const ref of ['order-1', 'order-2']) {
      const { payment_id } = await call(url, 'POST', '/openapi/v1/payments/payment', key, { payee, product_type: 'QR_DYNAMIC', merchant_ref_no: ref, amount: 12.3 });
      await call(url, 'POST', `/sandbox/v1/payments/${payment_id}/pickup`, key, {});
      await call(url, 'POST', `/sandbox/v1/payments/${payment_id}/pay`, key, {});
      const status = await call(url, 'GET', `/openapi/v1/payments/payment/${payment_id}`, key);
      generated.push(`payer ${status.payer.id} ${status.payer.name} ${status.source.account}`);
    }
  }
  return generated;
}

describe('serve --seed: same seed, same sandbox', () => {
  it('two processes with --seed 42 given the same calls generate the same names and payers; --seed 43 others', async () => {
    const [first, second, other] = await Promise.all(['42', '42', '43'].map((seed) => servers.start('unused.json', {}, ['--memory', '--seed', seed])));
    const [a, b, c] = await Promise.all([sameCalls(first!.url), sameCalls(second!.url), sameCalls(other!.url)]);
    expect(a).toHaveLength(15);
    expect(b).toEqual(a);
    expect(new Set(a).size).toBe(15);
    const enrolledOnly = (lines: string[]) => lines.slice(3);
    for (const line of enrolledOnly(c)) expect(a).not.toContain(line);
  }, 60_000);
});
