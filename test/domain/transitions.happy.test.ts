import { describe, expect, it } from 'vitest';
import type { PaymentAction } from '../../src/domain/transitions.js';
import { feesFor, maskAccount, transition } from '../../src/domain/transitions.js';
import { paymentIn, T0 } from '../support/payments.js';

const AT = T0 + 60_000;
const payer = { id: 'payer-2', name: 'Sam Second' };
const pay: PaymentAction = {
  type: 'pay',
  payer,
  paidCurrency: 'USD',
  paidAmountMinor: 778,
  source: { type: 'WALLET', provider: 'SANDBOX_WALLET', account: '********1234' },
  fees: feesFor('SGD', 1050),
};

/** Every row of SPEC section 5 that starts from an existing payment. */
const ROWS: readonly { from: 'P' | 'W' | 'A'; action: PaymentAction; to: string; event: string }[] = [
  { from: 'P', action: { type: 'assign', payer, payDueAt: null }, to: 'W', event: 'payer_assigned' },
  { from: 'W', action: { type: 'assign', payer, payDueAt: null }, to: 'W', event: 'payer_assigned' },
  { from: 'P', action: pay, to: 'A', event: 'paid' },
  { from: 'W', action: pay, to: 'A', event: 'paid' },
  { from: 'P', action: { type: 'cancel', reason: 'customer left' }, to: 'V', event: 'cancelled' },
  { from: 'W', action: { type: 'cancel', reason: 'customer left' }, to: 'V', event: 'cancelled' },
  { from: 'P', action: { type: 'fail', reason: 'declined' }, to: 'F', event: 'failed' },
  { from: 'W', action: { type: 'fail', reason: 'declined' }, to: 'F', event: 'failed' },
  { from: 'P', action: { type: 'expire', reason: 'time-to-live passed' }, to: 'E', event: 'expired' },
  { from: 'W', action: { type: 'expire', reason: 'time-to-live passed' }, to: 'E', event: 'expired' },
  { from: 'A', action: { type: 'void', reason: 'refund' }, to: 'V', event: 'voided' },
  { from: 'A', action: { type: 'settle' }, to: 'A', event: 'settled' },
];

describe('transitions: every row of the state table', () => {
  it.each(ROWS.map((r) => [r.from, r.action.type, r.to, r]))('%s --%s--> %s', (_from, _type, _to, row) => {
    const before = paymentIn(row.from);
    const after = transition(before, row.action, AT, 'merchant');
    expect(after.status).toBe(row.to);
    expect(after.version).toBe(before.version + 1);
    expect(after.history).toHaveLength(before.history.length + 1);
    const reason = 'reason' in row.action ? row.action.reason : null;
    expect(after.history.at(-1)).toEqual({ type: row.event, from: row.from, to: row.to, at: AT, reason, actor: 'merchant' });
    // The input is not mutated: the domain is pure.
    expect(before.status).toBe(row.from);
  });

  it('create is the (new) row: the creation event has no from state', () => {
    expect(paymentIn('P').history[0]).toMatchObject({ type: 'created', from: null, to: 'P' });
  });

  it('re-assigning in W replaces the payer', () => {
    const after = transition(paymentIn('W'), { type: 'assign', payer, payDueAt: null }, AT, 'merchant');
    expect(after.payer).toEqual(payer);
  });

  it('paying sets payment date, payer, source, fee and paid amount and currency', () => {
    const after = transition(paymentIn('P'), pay, AT, 'payer');
    expect(after).toMatchObject({ paidAt: AT, payer, paidCurrency: 'USD', paidAmountMinor: 778, source: pay.type === 'pay' ? pay.source : null });
    expect(after.fees).toEqual([{ type: 'MDR', currency: 'SGD', amountMinor: 6 }]);
    expect(after.payDueAt).toBeNull();
    expect(after.settled).toBe(false);
  });

  it('settlement is a flag: the status stays A and the settlement time is kept', () => {
    const after = transition(paymentIn('A'), { type: 'settle' }, AT, 'clock');
    expect(after).toMatchObject({ status: 'A', settled: true, settledAt: AT });
  });

  it('cancel keeps its reason in the history', () => {
    const after = transition(paymentIn('W'), { type: 'cancel', reason: 'out of stock' }, AT, 'merchant');
    expect(after.history.at(-1)?.reason).toBe('out of stock');
  });

  it('the history keeps its first event and the newest ones when it reaches its cap', () => {
    let p = paymentIn('W');
    for (let i = 0; i < 150; i++) p = transition(p, { type: 'assign', payer: { id: `p${i}`, name: 'N' }, payDueAt: null }, AT + i, 'merchant');
    expect(p.history).toHaveLength(100);
    expect(p.history[0]?.type).toBe('created');
    expect(p.history.at(-1)?.at).toBe(AT + 149);
  });
});

describe('transitions: fees and masking', () => {
  it('charges 0.60 % MDR, rounded half up', () => {
    expect(feesFor('SGD', 10000)).toEqual([{ type: 'MDR', currency: 'SGD', amountMinor: 60 }]);
    expect(feesFor('SGD', 1050)[0]?.amountMinor).toBe(6);
    expect(feesFor('SGD', 1)[0]?.amountMinor).toBe(0);
  });

  it('masks an account to its last four characters', () => {
    expect(maskAccount('123456789012')).toBe('********9012');
    expect(maskAccount('123')).toBe('123');
  });
});
