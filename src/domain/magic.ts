/** Magic values: data an application already sends that steers the sandbox's outcome. */

export const MAGIC_PAYERS = {
  PAYER_PAYS: 'pays at once when assigned or given at create (status A)',
  PAYER_PAYS_LATER: 'pays 30 sandbox seconds after assignment',
  PAYER_DECLINES: 'the payment fails (status F)',
  PAYER_NEVER_PAYS: 'stays W until it expires',
} as const;

export const PAY_LATER_DELAY_MS = 30_000;

export type MagicPayerOutcome = 'pay_now' | 'pay_later' | 'decline' | 'none';

export function magicPayerOutcome(payer: string): MagicPayerOutcome {
  switch (payer) {
    case 'PAYER_PAYS':
      return 'pay_now';
    case 'PAYER_PAYS_LATER':
      return 'pay_later';
    case 'PAYER_DECLINES':
      return 'decline';
    default:
      return 'none';
  }
}

/** Create amounts (in minor units) that inject a fault. */
export const MAGIC_AMOUNTS: Readonly<Record<number, { readonly fault: string; readonly effect: string }>> = {
  90001: { fault: 'error=500', effect: 'create answers 500, nothing committed' },
  90002: { fault: 'error=503', effect: 'create answers 503, nothing committed' },
  90003: { fault: 'timeout', effect: 'create commits, then the response is held (timeout)' },
  90004: { fault: 'drop', effect: 'create commits, then the connection is closed without a response' },
};

/** The fault of a magic amount that acts once the create is committed (timeout, drop), or null: a create refused before it commits never meets it. */
export function faultAfterCommit(amountMinor: number): 'timeout' | 'drop' | null {
  const fault = MAGIC_AMOUNTS[amountMinor]?.fault;
  return fault === 'timeout' || fault === 'drop' ? fault : null;
}
