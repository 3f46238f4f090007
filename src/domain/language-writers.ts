/**
 * How Python and PHP write values when their defaults are kept: the signature doctor rebuilds a
 * sign these ways to name the mistake (SPEC 21). Pure: no I/O, no HTTP.
 */
import { isLeftOut } from './signature.js';
import type { SignatureMistakeId } from './signature-mistakes.js';

/** One way of writing JSON; every flag off is RFC 8785 canonical JSON (canonicalJson). */
export interface JsonStyle {
  /** Keys in the order sent instead of sorted (json.dumps without sort_keys, json_encode without ksort). */
  readonly unsorted?: boolean;
  /** ", " and ": " between items (json.dumps's default separators). */
  readonly spaced?: boolean;
  /** Non-ASCII characters as \uXXXX (json.dumps's ensure_ascii=True, json_encode without JSON_UNESCAPED_UNICODE). */
  readonly unicodeEscaped?: boolean;
  /** "/" as "\/" (json_encode without JSON_UNESCAPED_SLASHES). */
  readonly slashesEscaped?: boolean;
  /** Whole numbers with a fraction, 7 as 7.0 (Python floats, json_encode with JSON_PRESERVE_ZERO_FRACTION). */
  readonly wholeAsFloat?: boolean;
}

/** A number as Python writes a float: 7.0, 100.5 (whole numbers below 1e16 keep ".0"). */
export function floatText(n: number): string {
  return Number.isInteger(n) && Math.abs(n) < 1e16 ? `${n}.0` : String(n);
}

function stringText(s: string, style: JsonStyle): string {
  let text = JSON.stringify(s);
  // Each UTF-16 code unit on its own, so a pair becomes \ud83d\ude00 as both languages write it.
  if (style.unicodeEscaped) text = text.replace(/[\u0080-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return style.slashesEscaped ? text.replaceAll('/', '\\/') : text;
}

/** A parsed JSON value written in `style`. */
export function jsonWritten(value: unknown, style: JsonStyle): string {
  const comma = style.spaced ? ', ' : ',';
  if (Array.isArray(value)) return `[${value.map((v) => jsonWritten(v, style)).join(comma)}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    if (!style.unsorted) keys.sort();
    const colon = style.spaced ? ': ' : ':';
    return `{${keys.map((k) => `${stringText(k, style)}${colon}${jsonWritten((value as Record<string, unknown>)[k], style)}`).join(comma)}}`;
  }
  if (typeof value === 'string') return stringText(value, style);
  if (typeof value === 'number' && style.wholeAsFloat) return floatText(value);
  return JSON.stringify(value) ?? 'null';
}

/** PHP rawurlencode: encodeURIComponent, but ! * ' ( ) escaped too. */
export function phpRawurlencode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** PHP urlencode (what http_build_query uses): rawurlencode with ~ escaped and space as +. */
export function phpUrlencode(text: string): string {
  return phpRawurlencode(text).replaceAll('~', '%7E').replaceAll('%20', '+');
}

/** A scalar as http_build_query writes it: true 1, false 0, numbers as printed. */
function queryScalar(value: unknown): string {
  if (typeof value === 'boolean') return value ? '1' : '0';
  return String(value);
}

/** The pieces http_build_query writes for one value: objects and arrays as name[key]=..., null and empty ones left out. */
function queryPieces(name: string, value: unknown, sortNested: boolean, out: string[]): void {
  if (value === null || value === undefined) return;
  if (typeof value === 'object') {
    const keys = Object.keys(value);
    if (sortNested && !Array.isArray(value)) keys.sort();
    for (const key of keys) queryPieces(`${name}[${key}]`, (value as Record<string, unknown>)[key], sortNested, out);
    return;
  }
  out.push(`${phpUrlencode(name)}=${phpUrlencode(queryScalar(value))}`);
}

/**
 * The fields part as PHP's http_build_query writes the body (sign and sign_type left out; keys as
 * sent, ksorted, or ksorted at every level): metadata as metadata%5Bkey%5D=..., space as +, "" kept.
 */
export function httpBuildQuery(body: Readonly<Record<string, unknown>>, amountText: string | undefined, order: 'sent' | 'sorted' | 'sorted-nested'): string {
  const names = Object.keys(body).filter((name) => name !== 'sign' && name !== 'sign_type');
  if (order !== 'sent') names.sort();
  const out: string[] = [];
  for (const name of names) queryPieces(name, name === 'amount' && amountText !== undefined ? amountText : body[name], order === 'sorted-nested', out);
  return out.join('&');
}

const JSON_FLAGS: Readonly<Record<keyof JsonStyle, SignatureMistakeId>> = {
  unsorted: 'metadata-keys-unsorted',
  unicodeEscaped: 'json-unicode-escaped',
  spaced: 'json-spaced-separators',
  slashesEscaped: 'json-escaped-slashes',
  wholeAsFloat: 'numbers-with-fraction',
};
/** The JSON mistakes alone and as Python's json.dumps and PHP's json_encode make them together (index 0: RFC 8785). */
export const JSON_STYLES: readonly { readonly style: JsonStyle; readonly ids: readonly SignatureMistakeId[] }[] = (
  [
    [], ['unsorted'], ['unicodeEscaped'], ['spaced'], ['slashesEscaped'], ['wholeAsFloat'],
    // Python's json.dumps: ensure_ascii and separators by default; floats as 7.0; sort_keys or not.
    ['spaced', 'unicodeEscaped'], ['spaced', 'unicodeEscaped', 'wholeAsFloat'], ['spaced', 'unicodeEscaped', 'unsorted'],
    ['spaced', 'unicodeEscaped', 'unsorted', 'wholeAsFloat'], ['spaced', 'wholeAsFloat'], ['unicodeEscaped', 'wholeAsFloat'],
    // PHP's json_encode: \/ and \uXXXX by default; ksort or not.
    ['slashesEscaped', 'unicodeEscaped'], ['slashesEscaped', 'unicodeEscaped', 'unsorted'],
  ] as const
).map((flags: readonly (keyof JsonStyle)[]) => ({ style: Object.fromEntries(flags.map((f) => [f, true])), ids: flags.map((f) => JSON_FLAGS[f]) }));

/** The JSON styles that write this body's objects and numbers unlike every style before them: the others change nothing here. */
export function distinctStyles(body: Readonly<Record<string, unknown>>): Set<number> {
  const values = Object.entries(body).filter(([name, v]) => name !== 'amount' && !isLeftOut(v) && (typeof v === 'object' || typeof v === 'number'));
  const written = new Set<string>();
  const styles = new Set<number>();
  JSON_STYLES.forEach(({ style }, i) => {
    const text = values.map(([, v]) => (typeof v === 'number' ? (style.wholeAsFloat ? floatText(v) : String(v)) : jsonWritten(v, style))).join('\n');
    if (!written.has(text)) styles.add(i);
    written.add(text);
  });
  return styles;
}
