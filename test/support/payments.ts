/** Domain fixtures: a payment in any status, built without HTTP or a store. */
import { newPayment } from '../../src/domain/payment.js';
import type { Payment, PaymentStatus } from '../../src/domain/payment.js';

export const T0 = Date.UTC(2030, 0, 15, 10, 0, 0);

export function aPayment(overrides: Partial<Payment> = {}): Payment {
  const fresh = newPayment({
    id: 'pay_0123456789ABCDEFGHIJKL',
    token: 'ptok_0123456789abcdefghijklmnopqrstuv',
    code: 'ABCD2345WXYZ',
    payeeId: 'DEMO-MERCHANT-1',
    merchantRefNo: 'order-1',
    productType: 'QR_DYNAMIC',
    currency: 'SGD',
    amountMinor: 1050,
    now: T0,
    ttlMs: 15 * 60_000,
  });
  return { ...fresh, ...overrides };
}

/** A payment in one of the seven states the transition table distinguishes. */
export type StateName = PaymentStatus | 'A-settled';

export const STATE_NAMES: readonly StateName[] = ['P', 'W', 'E', 'F', 'V', 'A', 'A-settled'];

export function paymentIn(state: StateName): Payment {
  const payer = { id: 'payer-1', name: 'Pat Payer' };
  switch (state) {
    case 'P':
      return aPayment();
    case 'W':
      return aPayment({ status: 'W', payer });
    case 'A':
      return aPayment({ status: 'A', payer, paidAt: T0 + 1000 });
    case 'A-settled':
      return aPayment({ status: 'A', payer, paidAt: T0 + 1000, settled: true, settledAt: T0 + 2000 });
    default:
      return aPayment({ status: state });
  }
}
