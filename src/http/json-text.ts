/**
 * The JSON text of every answer and webhook body: amounts are written as bare numbers with
 * exactly two decimals (10.50, not 10.5), which JSON.stringify alone cannot do. The domain
 * knows only minor units; this is where they become wire text.
 */
import { randomBytes } from 'node:crypto';
import { formatMinorUnits } from '../domain/money.js';

/**
 * JSON.stringify writes an Amount as a string holding a marker drawn at start-up (nobody can
 * send it) before the number; toJsonText turns each such string into the bare number.
 */
export const AMOUNT_MARK = `amount-${randomBytes(12).toString('hex')}:`;

/** An amount of minor units, as the JSON writer prints it. */
export class Amount {
  constructor(readonly minor: number) {}
  toString(): string {
    return formatMinorUnits(this.minor);
  }
  toJSON(): string {
    return `${AMOUNT_MARK}${this.toString()}`;
  }
}

const MARKED_AMOUNT = new RegExp(`"${AMOUNT_MARK}(-?\\d+\\.\\d\\d)"`, 'g');

/** JSON text in which every Amount is written as a number with exactly two decimals. */
export function toJsonText(value: unknown): string {
  // JSON.stringify is native and does the whole walk; Amounts come out as marked strings.
  const text = JSON.stringify(value) ?? 'null';
  return text.includes(AMOUNT_MARK) ? text.replace(MARKED_AMOUNT, '$1') : text;
}
