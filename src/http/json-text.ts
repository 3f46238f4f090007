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
/** The same for JSON text embedded as is (RawJson): the marker, then its place in the call's list. */
export const RAW_JSON_MARK = `json-${randomBytes(12).toString('hex')}:`;

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

/** The RawJson texts met by the toJsonText call under way (JSON.stringify is synchronous: one call at a time). */
let embedding: string[] | undefined;

/**
 * JSON text we wrote before (a stored webhook body), embedded byte for byte by toJsonText: parsed
 * and written again, 100.00 would come out as 100. `text` must be one complete JSON value.
 */
export class RawJson {
  constructor(readonly text: string) {}
  toJSON(): unknown {
    // Outside toJsonText (a plain JSON.stringify) the value is the best that can be done.
    if (!embedding) return JSON.parse(this.text) as unknown;
    embedding.push(this.text);
    return `${RAW_JSON_MARK}${embedding.length - 1}`;
  }
}

const MARKED_AMOUNT = new RegExp(`"${AMOUNT_MARK}(-?\\d+\\.\\d\\d)"`, 'g');
const MARKED = new RegExp(`"(?:${AMOUNT_MARK}(-?\\d+\\.\\d\\d)|${RAW_JSON_MARK}(\\d+))"`, 'g');

/** JSON text in which every Amount is written as a number with exactly two decimals, and every RawJson as its text. */
export function toJsonText(value: unknown): string {
  const texts: string[] = [];
  const outer = embedding;
  embedding = texts;
  let text: string;
  try {
    // JSON.stringify is native and does the whole walk; Amounts and RawJsons come out as marked strings.
    text = JSON.stringify(value) ?? 'null';
  } finally {
    embedding = outer;
  }
  // Most answers hold Amounts only: a replacement pattern is quicker than a callback.
  if (texts.length === 0) return text.includes(AMOUNT_MARK) ? text.replace(MARKED_AMOUNT, '$1') : text;
  // One pass: embedded texts are not scanned again.
  return text.replace(MARKED, (match, amount: string | undefined, index: string | undefined) => amount ?? texts[Number(index)] ?? match);
}
