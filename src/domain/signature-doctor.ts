/**
 * The signature doctor: when a sign does not match, rebuild it the ways integrators commonly get
 * it wrong and name the mistakes whose result equals the sign sent. Pure: no I/O, no HTTP.
 */
import { createHash } from 'node:crypto';
import { distinctStyles, floatText, httpBuildQuery, JSON_STYLES, jsonWritten, phpRawurlencode, phpUrlencode } from './language-writers.js';
import { isLeftOut, signedValueText } from './signature.js';
import { SIGNATURE_MISTAKES } from './signature-mistakes.js';
import type { SignatureMistake, SignatureMistakeId } from './signature-mistakes.js';

export { SIGNATURE_MISTAKES };
export type { SignatureMistake, SignatureMistakeId };

/** One way of writing the fields part of the string to sign; the default way is the right one. */
interface FieldsWay {
  readonly encode: (text: string) => string;
  readonly sentOrder: boolean;
  readonly amountAsSent: boolean;
  /** How objects (metadata) and other numbers are written: an index into JSON_STYLES, 0 the right way. */
  readonly json: number;
  readonly booleans: (typeof BOOLEANS)[number];
  readonly signFields: 'none' | 'sign_type' | 'both';
  readonly emptyAs: 'left-out' | 'empty' | 'text';
}

const BOOLEANS = ['json', 'python', 'php'] as const;
const RIGHT_WAY: FieldsWay = { encode: encodeURIComponent, sentOrder: false, amountAsSent: false, json: 0, booleans: 'json', signFields: 'none', emptyAs: 'left-out' };

const formEncode = (text: string): string => new URLSearchParams([['', text]]).toString().slice(1);
// split and join: about twice as quick as a global RegExp on long runs of spaces.
const spacesAsPlus = (encoded: string): string => encoded.split('%20').join('+');
const plusForSpace = (text: string): string => spacesAsPlus(encodeURIComponent(text));
const notEncoded = (text: string): string => text;

const ENCODERS: readonly ((text: string) => string)[] = [encodeURIComponent, formEncode, plusForSpace, phpUrlencode, phpRawurlencode, notEncoded];
const EMPTY_AS: readonly FieldsWay['emptyAs'][] = ['left-out', 'empty', 'text'];
/** The most ways one value can be written with one encoder (variantOf's range). */
const VARIANTS = Math.max(EMPTY_AS.length, JSON_STYLES.length, BOOLEANS.length);

/**
 * Each mistake in the fields part (or several made together), with the ways clients are seen to
 * make it. A JSON mistake pairs only with those marked `pairs` (seen together), to keep a diagnosis cheap.
 */
const FIELD_MISTAKES: readonly { readonly ids: readonly SignatureMistakeId[]; readonly ways: readonly Partial<FieldsWay>[]; readonly json?: 'is' | 'pairs' }[] = [
  { ids: ['form-encoding'], ways: [{ encode: formEncode }, { encode: plusForSpace }, { encode: phpUrlencode }], json: 'pairs' },
  { ids: ['php-rawurlencode'], ways: [{ encode: phpRawurlencode }], json: 'pairs' },
  { ids: ['fields-in-sent-order'], ways: [{ sentOrder: true }], json: 'pairs' },
  { ids: ['amount-not-two-decimals'], ways: [{ amountAsSent: true }], json: 'pairs' },
  ...JSON_STYLES.slice(1).map(({ ids }, i) => ({ ids, ways: [{ json: i + 1 }], json: 'is' as const })),
  { ids: ['booleans-not-true-false'], ways: [{ booleans: 'python' as const }, { booleans: 'php' as const }] },
  { ids: ['sign-fields-included'], ways: [{ signFields: 'sign_type' }, { signFields: 'both' }] },
  { ids: ['empty-fields-included'], ways: [{ emptyAs: 'empty' }, { emptyAs: 'text' }] },
  { ids: ['values-not-encoded'], ways: [{ encode: notEncoded }] },
];

function valueWritten(name: string, value: unknown, way: FieldsWay): string {
  // The sign cannot be in the string it signs: a client that includes it signs a placeholder.
  if (name === 'sign') return '';
  if (isLeftOut(value)) return way.emptyAs === 'text' ? (typeof value === 'object' ? JSON.stringify(value) : String(value)) : '';
  if (name === 'amount' && way.amountAsSent && typeof value === 'number') return String(value);
  const { style } = JSON_STYLES[way.json]!;
  if (value !== null && typeof value === 'object' && way.json !== 0) return jsonWritten(value, style);
  if (name !== 'amount' && typeof value === 'number' && style.wholeAsFloat) return floatText(value);
  if (typeof value === 'boolean' && way.booleans !== 'json') return way.booleans === 'python' ? (value ? 'True' : 'False') : value ? '1' : '';
  return signedValueText(name, value);
}

/** The one part of a way that changes how this value is written, as a number below VARIANTS. */
function variantOf(name: string, value: unknown, way: FieldsWay): number {
  if (isLeftOut(value)) return EMPTY_AS.indexOf(way.emptyAs);
  if (name === 'amount') return way.amountAsSent ? 1 : 0;
  if (typeof value === 'boolean') return BOOLEANS.indexOf(way.booleans);
  return typeof value === 'object' || typeof value === 'number' ? way.json : 0;
}

function includes(name: string, value: unknown, way: FieldsWay): boolean {
  if (name === 'sign') return way.signFields === 'both';
  if (name === 'sign_type') return way.signFields !== 'none';
  return way.emptyAs !== 'left-out' || !isLeftOut(value);
}

/**
 * Writes the fields part of one body in many ways. Each field's `name=value` piece is written
 * once per encoder and variant and numbered (equal pieces share a number), so a way is first a
 * list of numbers: ways that write the same text are told apart without building or comparing it.
 */
class FieldsWriter {
  private readonly names: readonly string[];
  private readonly sorted: readonly number[];
  /** Per field, per encoder and variant: the number of its piece. */
  private readonly slots: (number | undefined)[][];
  /** Per field, per variant: its value as written before encoding (canonical JSON of an object is written once, not per encoder). */
  private readonly written: (string | undefined)[][];
  private readonly pieces: string[] = [];

  constructor(private readonly body: Readonly<Record<string, unknown>>) {
    this.names = Object.keys(body);
    const names = this.names;
    this.sorted = names.map((_, i) => i).sort((a, b) => (names[a]! < names[b]! ? -1 : 1));
    this.slots = names.map(() => []);
    this.written = names.map(() => []);
  }

  /** The pieces of the fields part written this way, as numbers. */
  piecesOf(patch: Partial<FieldsWay>): number[] {
    const way = { ...RIGHT_WAY, ...patch };
    const encoder = ENCODERS.indexOf(way.encode);
    const out: number[] = [];
    for (const i of way.sentOrder ? this.names.keys() : this.sorted) {
      const name = this.names[i]!;
      const value = this.body[name];
      if (includes(name, value, way)) out.push(this.piece(i, encoder, variantOf(name, value, way), way));
    }
    return out;
  }

  text(pieces: readonly number[]): string {
    return pieces.map((n) => this.pieces[n]).join('&');
  }

  /** The length of text(pieces), without writing it. */
  lengthOf(pieces: readonly number[]): number {
    let length = Math.max(0, pieces.length - 1);
    for (const n of pieces) length += this.pieces[n]!.length;
    return length;
  }

  private piece(field: number, encoder: number, variant: number, way: FieldsWay): number {
    const slots = this.slots[field]!;
    const slot = encoder * VARIANTS + variant;
    let n = slots[slot];
    if (n === undefined) {
      const name = this.names[field]!;
      const written = (this.written[field]![variant] ??= valueWritten(name, this.body[name], way));
      const text = `${name}=${way.encode(written)}`;
      // Equal to a piece of this field written another way: the same number.
      n = slots.find((other) => other !== undefined && this.pieces[other] === text);
      if (n === undefined) n = this.pieces.push(text) - 1;
      slots[slot] = n;
    }
    return n;
  }
}

/** The fields part of the string to sign, written one way (no patch gives fieldsToSign). */
export function fieldsWrittenAs(body: Readonly<Record<string, unknown>>, patch: Partial<FieldsWay> = {}): string {
  const writer = new FieldsWriter(body);
  return writer.text(writer.piecesOf(patch));
}

/** How the sign sent is written tells the digest: no need to try them all. */
function digestOf(sign: string): { algorithm: 'sha512' | 'sha256'; encoding: 'hex' | 'base64'; mistakes: SignatureMistakeId[]; value: string } | null {
  const uppercase: SignatureMistakeId[] = /[A-F]/.test(sign) ? ['uppercase-hex'] : [];
  if (/^[0-9a-fA-F]{128}$/.test(sign)) return { algorithm: 'sha512', encoding: 'hex', mistakes: uppercase, value: sign.toLowerCase() };
  if (/^[0-9a-fA-F]{64}$/.test(sign)) return { algorithm: 'sha256', encoding: 'hex', mistakes: ['sha256', ...uppercase], value: sign.toLowerCase() };
  if (/^[A-Za-z0-9+/]{86}==$/.test(sign)) return { algorithm: 'sha512', encoding: 'base64', mistakes: ['base64-digest'], value: sign };
  return null;
}

/** A way of writing the fields part and the mistakes it stands for. */
interface FieldsCandidate {
  readonly patch: Partial<FieldsWay>;
  readonly mistakes: readonly SignatureMistakeId[];
}

const pairs = (a: (typeof FIELD_MISTAKES)[number], b: (typeof FIELD_MISTAKES)[number]): boolean => (a.json !== 'is' && b.json !== 'is') || a.json === 'pairs' || b.json === 'pairs';

/** The ways to try, fewest mistakes first (a sort keeps the order among equals): the right one, each mistake, each pair. */
const FIELD_CANDIDATES: readonly FieldsCandidate[] = [
  { patch: {}, mistakes: [] },
  ...FIELD_MISTAKES.flatMap((m) => m.ways.map((patch) => ({ patch, mistakes: m.ids }))),
  ...FIELD_MISTAKES.flatMap((a, i) =>
    FIELD_MISTAKES.slice(i + 1)
      .filter((b) => pairs(a, b))
      .flatMap((b) => a.ways.flatMap((wa) => b.ways.map((wb) => ({ patch: { ...wa, ...wb }, mistakes: [...a.ids, ...b.ids] })))),
  ),
].sort((a, b) => a.mistakes.length - b.mistakes.length);

/** http_build_query writes the whole fields part its own way: ksorted (at the top or every level) or as sent, amount formatted or not. */
function queryCandidates(body: Readonly<Record<string, unknown>>): { text: string; mistakes: SignatureMistakeId[] }[] {
  const amount = typeof body.amount === 'number' ? signedValueText('amount', body.amount) : undefined;
  return (['sorted', 'sorted-nested', 'sent'] as const).flatMap((order) =>
    [amount, undefined].map((amountText) => ({
      text: httpBuildQuery(body, amountText, order),
      mistakes: ['php-http-build-query', ...(order === 'sent' ? ['fields-in-sent-order' as const] : []), ...(amountText ? [] : ['amount-not-two-decimals' as const])],
    })),
  );
}

/**
 * The most text one diagnosis hashes, in characters: under a millisecond of SHA-512. A string to
 * sign under about 1.5 KiB gets every way tried (up to ~150 ways); a longer one the likeliest (fewest mistakes) first, as far as this goes.
 */
export const DIAGNOSIS_TEXT_BUDGET = 256 * 1024;

export interface Diagnosis {
  /** The known mistakes that turn the body into the sign sent; null when none does (or the sign is right). */
  readonly mistakes: readonly SignatureMistake[] | null;
  /** True when the budget left the rarer ways of writing the fields untried (a long body). */
  readonly untried: boolean;
}

const NOTHING_KNOWN: Diagnosis = { mistakes: null, untried: false };

/** Tries the known mistakes on this body and sign, only after a mismatch; hashes at most DIAGNOSIS_TEXT_BUDGET characters. */
export function diagnose(body: Readonly<Record<string, unknown>>, salt: string, sign: string): Diagnosis {
  const digest = digestOf(sign);
  if (!digest) return NOTHING_KNOWN;
  const endings: { text: string; mistakes: SignatureMistakeId[] }[] = [
    { text: `&${salt}`, mistakes: [] },
    { text: '', mistakes: ['salt-missing'] },
    { text: salt, mistakes: ['salt-without-ampersand'] },
  ];
  const writer = new FieldsWriter(body);
  const seen = new Set<string>();
  let best: SignatureMistakeId[] | undefined;
  let budget = DIAGNOSIS_TEXT_BUDGET;
  let untried = false;
  const tryText = (text: string, fieldMistakes: readonly SignatureMistakeId[]) => {
    budget -= text.length;
    // The endings share the fields part: hash it once and finish a copy per ending.
    const hash = createHash(digest.algorithm).update(text, 'utf8');
    for (const ending of endings) {
      const mistakes = [...digest.mistakes, ...fieldMistakes, ...ending.mistakes];
      if (best && best.length <= mistakes.length) continue;
      if (hash.copy().update(ending.text, 'utf8').digest(digest.encoding) === digest.value) best = mistakes;
    }
  };
  const styles = distinctStyles(body);
  const booleans = Object.values(body).some((v) => typeof v === 'boolean');
  try {
    for (const fields of FIELD_CANDIDATES) {
      // Fewest mistakes first: once a match is found, a way with as many cannot beat it.
      if (best && best.length <= digest.mistakes.length + fields.mistakes.length) continue;
      // Skipped before writing: a JSON style that writes this body as another does, booleans where there are none.
      if ((fields.patch.json !== undefined && !styles.has(fields.patch.json)) || (fields.patch.booleans !== undefined && !booleans)) continue;
      const pieces = writer.piecesOf(fields.patch);
      const key = pieces.join(',');
      // A mistake that changes nothing in this body cannot be told apart: the first (fewest) wins.
      if (seen.has(key)) continue;
      seen.add(key);
      if (writer.lengthOf(pieces) > budget) {
        untried = true;
        break;
      }
      tryText(writer.text(pieces), fields.mistakes);
    }
    for (const query of best ? [] : queryCandidates(body)) {
      if (query.text.length > budget) untried = true;
      else tryText(query.text, query.mistakes);
    }
  } catch (err) {
    // A lone surrogate cannot be percent-encoded: no way of signing such a body is known.
    if (err instanceof URIError) return NOTHING_KNOWN;
    throw err;
  }
  return { mistakes: !best || best.length === 0 ? null : best.map((id) => SIGNATURE_MISTAKES[id]), untried: !best && untried };
}

/** The known mistakes that turn this body into the sign sent, or null when none does (or the sign is right). */
export function diagnoseSignature(body: Readonly<Record<string, unknown>>, salt: string, sign: string): readonly SignatureMistake[] | null {
  return diagnose(body, salt, sign).mistakes;
}

/** The `signature_hint` of a mismatch: the mistakes named with their fixes, or where to look. */
export function signatureHint(mistakes: readonly SignatureMistake[] | null, untried = false): string {
  if (!mistakes || mistakes.length === 0) {
    const checked = untried
      ? 'No known mistake matches this sign among the likeliest: this body is long, so the rarer combinations of mistakes were not tried (known mistakes: '
      : 'No known mistake matches this sign (checked: ';
    return (
      checked +
      'upper-case hex, SHA-256 or base64 digest, form encoding with +, unencoded values, fields in the order sent, ' +
      'amount without two decimals, unsorted metadata keys, metadata JSON with \\uXXXX escapes, ", " separators, \\/ or 7.0, booleans as True or 1, PHP rawurlencode or http_build_query, ' +
      'sign_type or sign in the string, empty fields included, salt missing or appended without &). ' +
      'Compare your string to sign with string_to_sign (the salt shown as <signing_salt>) character by character; if they are equal, check the salt you append.'
    );
  }
  const lead = mistakes.length === 1 ? 'Known mistake' : `${mistakes.length} known mistakes together`;
  return `${lead}: ${mistakes.map((m) => `[${m.id}] ${m.mistake}; fix: ${m.fix}.`).join(' ')}`;
}
