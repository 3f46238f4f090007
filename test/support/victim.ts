/**
 * A victim merchant measured against itself, for the tests of tenants isolated in resources: it
 * polls its payment's status one request at a time, quiet and under attack in turn, and the
 * median round's p99s are compared (rounds alternate, so load drifting on the machine weighs on
 * both alike, and one round another process stalls does not decide).
 */
import { request } from 'node:http';
import type { Agent } from 'node:http';
import { expect } from 'vitest';
import { DEMO_KEY, DEMO_PAYEE, uniqueRef } from '../helpers.js';

export interface Answered {
  readonly status: number;
  readonly json: any;
}

export async function send(base: string, method: string, url: string, key: string, body?: string): Promise<Answered> {
  const res = await fetch(`${base}${url}`, { method, headers: { 'Service-Api-Key': key, ...(body ? { 'Content-Type': 'application/json' } : {}) }, body });
  return { status: res.status, json: JSON.parse(await res.text()) };
}

/**
 * An attacker's request through node:http, its answer drained unread: the client work of the
 * attack (parsing answers of about 70 KB) must not delay the victim's requests in this same process.
 */
export function attack(agent: Agent, base: string, method: string, url: string, key: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'Service-Api-Key': key };
    if (body) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    const req = request(`${base}${url}`, { method, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export function p99(latencies: number[]): number {
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The demo merchant's victim: a payment of its own, and `poll`, its status read for one phase, one request at a time. */
export async function victimOf(base: string, phaseMs: number, maxRequests: number): Promise<{ readonly statusUrl: string; poll(): Promise<number[]> }> {
  const created = await send(base, 'POST', '/openapi/v1/payments/payment', DEMO_KEY, JSON.stringify({ payee: DEMO_PAYEE, product_type: 'QR_DYNAMIC', merchant_ref_no: uniqueRef('victim'), amount: 10.5 }));
  const statusUrl = `/openapi/v1/payments/payment/${created.json.payment_id}`;
  const poll = async (): Promise<number[]> => {
    const latencies: number[] = [];
    const until = performance.now() + phaseMs;
    while (performance.now() < until && latencies.length < maxRequests) {
      const started = performance.now();
      const answer = await send(base, 'GET', statusUrl, DEMO_KEY);
      latencies.push(performance.now() - started);
      expect(answer.status).toBe(200);
    }
    return latencies;
  };
  return { statusUrl, poll };
}

/** Quiet and attacked phases in turn for `rounds` rounds: the median round's p99 of each, and each round's pair for the report. */
export async function quietAgainstAttacked(rounds: number, quiet: () => Promise<number[]>, attacked: () => Promise<number[]>): Promise<{ quietP99: number; loadedP99: number; rounds: string }> {
  const [quietP99s, loadedP99s, pairs]: [number[], number[], string[]] = [[], [], []];
  for (let round = 0; round < rounds; round++) {
    quietP99s.push(p99(await quiet()));
    loadedP99s.push(p99(await attacked()));
    pairs.push(`${quietP99s[round]!.toFixed(0)}/${loadedP99s[round]!.toFixed(0)}`);
  }
  return { quietP99: median(quietP99s), loadedP99: median(loadedP99s), rounds: pairs.join(', ') };
}
