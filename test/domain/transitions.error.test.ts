import { describe, expect, it } from 'vitest';
import { SandboxError } from '../../src/domain/errors.js';
import type { ActionType, PaymentAction } from '../../src/domain/transitions.js';
import { refusal, transition } from '../../src/domain/transitions.js';
import { paymentIn, STATE_NAMES } from '../support/payments.js';
import type { StateName } from '../support/payments.js';

const payer = { id: 'payer-2', name: 'Sam Second' };
const ACTIONS: Readonly<Record<ActionType, PaymentAction>> = {
  assign: { type: 'assign', payer, payDueAt: null },
  pay: { type: 'pay', payer, paidCurrency: 'SGD', paidAmountMinor: 1050, source: { type: 'WALLET', provider: 'P', account: '**12' }, fees: [] },
  cancel: { type: 'cancel', reason: 'r' },
  fail: { type: 'fail', reason: null },
  expire: { type: 'expire', reason: null },
  void: { type: 'void', reason: 'r' },
  settle: { type: 'settle' },
};

const ALLOWED: Readonly<Record<ActionType, readonly StateName[]>> = {
  assign: ['P', 'W'],
  pay: ['P', 'W'],
  cancel: ['P', 'W'],
  fail: ['P', 'W'],
  expire: ['P', 'W'],
  void: ['A'],
  settle: ['A'],
};

/** What a refusal must say beside the current state: the alternative, or that none is left. */
function expectedAdvice(state: StateName, type: ActionType): RegExp {
  if (type === 'void' && (state === 'P' || state === 'W')) return /not paid yet, so use cancel/;
  if (type === 'cancel' && state === 'A') return /already paid, so use void/;
  if (type === 'void' && state === 'A-settled') return /already settled, and void applies only before settlement/;
  if (type === 'cancel' && state === 'A-settled') return /already paid and settled, so neither cancel nor void applies/;
  if (type === 'settle' && state === 'A-settled') return /already settled/;
  if (type === 'settle') return /only a paid payment \(status A\) can be settled/;
  if (state === 'A') return /already paid\. A paid payment can only be voided \(before settlement\) or settled/;
  return /a final status; no operation can change it/;
}

const REFUSED = STATE_NAMES.flatMap((state) =>
  (Object.keys(ACTIONS) as ActionType[]).filter((type) => !ALLOWED[type].includes(state)).map((type) => [state, type] as const),
);

describe('transitions: every refused transition', () => {
  it('covers every state and action that the table does not allow', () => {
    expect(REFUSED).toHaveLength(7 * 7 - 12);
  });

  it.each(REFUSED)('%s refuses %s with 402, naming the state and what is allowed', (state, type) => {
    const p = paymentIn(state);
    let caught: unknown;
    try {
      transition(p, ACTIONS[type], p.createdAt + 1000, 'merchant');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SandboxError);
    const err = caught as SandboxError;
    expect(err.kind).toBe('refused');
    const letter = state === 'A-settled' ? 'A' : state;
    expect(err.description).toContain(`it is ${letter} (`);
    if (state === 'A-settled') expect(err.description).toContain('settled');
    expect(err.description).toContain(p.id);
    expect(err.description).toMatch(expectedAdvice(state, type));
    expect(refusal(p, type)).toBe(err.description);
  });

  it.each(STATE_NAMES.flatMap((state) => (Object.keys(ACTIONS) as ActionType[]).filter((t) => ALLOWED[t].includes(state)).map((t) => [state, t] as const)))(
    '%s allows %s (refusal is null)',
    (state, type) => {
      expect(refusal(paymentIn(state), type)).toBeNull();
    },
  );
});
