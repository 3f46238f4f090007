/** Money as integer minor units; the wire shows it with exactly two decimals. */
import { randomBytes } from 'node:crypto';

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

/** An amount that the JSON writer prints as a bare number with two decimals (10.50, not 10.5). */
export class Amount {
  constructor(readonly minor: number) {}
  toString(): string {
    return formatMinorUnits(this.minor);
  }
  /**
   * JSON.stringify writes an Amount as a string holding a marker drawn at start-up (nobody can
   * send it) before the number; the JSON writer turns each such string into the bare number.
   */
  toJSON(): string {
    return `${AMOUNT_MARK}${this.toString()}`;
  }
}

export const AMOUNT_MARK = `amount-${randomBytes(12).toString('hex')}:`;
