import { describe, expect, it } from 'vitest';
import { dueWork, nextUtcMidnight } from '../../src/domain/transitions.js';
import { aPayment, paymentIn, T0 } from '../support/payments.js';

const TTL = 15 * 60_000;
const DAY = 86_400_000;

describe('dueWork: what falls due on the sandbox clock', () => {
  it('nothing is due on a fresh payment before its time-to-live', () => {
    expect(dueWork(paymentIn('P'), T0 + TTL - 1, true)).toBeNull();
  });

  it('a P or W payment expires exactly when its time-to-live passes, at expiresAt', () => {
    expect(dueWork(paymentIn('P'), T0 + TTL, true)).toEqual({ kind: 'expire', at: T0 + TTL });
    expect(dueWork(paymentIn('W'), T0 + TTL + 5 * DAY, false)).toEqual({ kind: 'expire', at: T0 + TTL });
  });

  it('a delayed payer pays when due, before expiry', () => {
    const p = aPayment({ status: 'W', payDueAt: T0 + 30_000 });
    expect(dueWork(p, T0 + 29_999, true)).toBeNull();
    expect(dueWork(p, T0 + 30_000, true)).toEqual({ kind: 'pay', at: T0 + 30_000 });
    // Even far past expiry, the payer paid first because it was due first.
    expect(dueWork(p, T0 + TTL + 1, true)).toEqual({ kind: 'pay', at: T0 + 30_000 });
  });

  it('a delayed payer due at or after expiry does not pay: the payment expires', () => {
    const p = aPayment({ status: 'W', payDueAt: T0 + TTL });
    expect(dueWork(p, T0 + TTL, true)).toEqual({ kind: 'expire', at: T0 + TTL });
  });

  it('a paid payment settles at the first UTC midnight after payment when auto-settlement is on', () => {
    const p = paymentIn('A');
    const cutoff = nextUtcMidnight(p.paidAt!);
    expect(cutoff % DAY).toBe(0);
    expect(cutoff).toBeGreaterThan(p.paidAt!);
    expect(cutoff - p.paidAt!).toBeLessThanOrEqual(DAY);
    expect(dueWork(p, cutoff - 1, true)).toBeNull();
    expect(dueWork(p, cutoff, true)).toEqual({ kind: 'settle', at: cutoff });
  });

  it('nothing settles when auto-settlement is off', () => {
    expect(dueWork(paymentIn('A'), T0 + 10 * DAY, false)).toBeNull();
  });

  it.each(['E', 'F', 'V', 'A-settled'] as const)('nothing is ever due on %s', (state) => {
    expect(dueWork(paymentIn(state), T0 + 100 * DAY, true)).toBeNull();
  });

  it('the next UTC midnight of a midnight is the one after it', () => {
    expect(nextUtcMidnight(10 * DAY)).toBe(11 * DAY);
    expect(nextUtcMidnight(10 * DAY - 1)).toBe(10 * DAY);
  });
});
