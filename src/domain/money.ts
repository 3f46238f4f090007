/** Money as integer minor units; http/json-text.ts writes it on the wire with exactly two decimals. */

export const MIN_AMOUNT_MINOR = 1;
/** 9999999999.99: the longest amount that fits the 13 characters of EMV tag 54. */
export const MAX_AMOUNT_MINOR = 999_999_999_999;

const TWO_DECIMALS = /^\d+(\.\d{1,2})?$/;

/** The minor units of a JSON number, or undefined when it has more than two decimals or is not finite. */
export function toMinorUnits(amount: number): number | undefined {
  if (!Number.isFinite(amount) || amount < 0) return undefined;
  // String(n) is the shortest text that round-trips, so 10.005 stays 10.005 and is refused.
  const text = String(amount);
  if (!TWO_DECIMALS.test(text)) return undefined;
  const [whole, fraction = ''] = text.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

export function formatMinorUnits(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
