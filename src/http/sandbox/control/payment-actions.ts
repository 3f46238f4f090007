/**
 * The control and public actions a payment's state allows, each with the refusal it would get:
 * read from the domain's transition table (refusal), so a page offers exactly what the API accepts.
 */
import type { Payment } from '../../../domain/payment.js';
import { refusal } from '../../../domain/transitions.js';
import type { ActionType } from '../../../domain/transitions.js';

/** Each action as its route names it, and the transition it asks for. */
const ACTIONS = { pickup: 'assign', pay: 'pay', fail: 'fail', expire: 'expire', settle: 'settle', cancel: 'cancel', void: 'void' } as const satisfies Record<string, ActionType>;

export type PaymentActionName = keyof typeof ACTIONS;
export const PAYMENT_ACTION_NAMES = Object.keys(ACTIONS) as [PaymentActionName, ...PaymentActionName[]];

export interface ActionOffer {
  readonly action: PaymentActionName;
  readonly allowed: boolean;
  /** Why it is not allowed (the 402 it would answer), null when it is. */
  readonly refusal: string | null;
}

export function actionsOf(p: Payment): ActionOffer[] {
  return PAYMENT_ACTION_NAMES.map((action) => {
    const why = refusal(p, ACTIONS[action]);
    return { action, allowed: why === null, refusal: why };
  });
}
