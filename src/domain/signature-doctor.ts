/**
 * The signature doctor: when a sign does not match, rebuild it the ways integrators commonly get
 * it wrong and name the mistakes whose result equals the sign sent. Pure: no I/O, no HTTP.
 */
import { createHash } from 'node:crypto';
import { isLeftOut, signedValueText } from './signature.js';

export type SignatureMistakeId =
  | 'uppercase-hex'
  | 'sha256'
  | 'base64-digest'
  | 'form-encoding'
  | 'values-not-encoded'
  | 'fields-in-sent-order'
  | 'amount-not-two-decimals'
  | 'metadata-keys-unsorted'
  | 'sign-fields-included'
  | 'empty-fields-included'
  | 'salt-missing'
  | 'salt-without-ampersand';

export interface SignatureMistake {
  readonly id: SignatureMistakeId;
  /** What the integration did, in one sentence. */
  readonly mistake: string;
  /** What to do instead. */
  readonly fix: string;
}

/** The catalogue. No text quotes the request or the salt, so a hint never carries either. */
export const SIGNATURE_MISTAKES: Readonly<Record<SignatureMistakeId, SignatureMistake>> = {
  'uppercase-hex': { id: 'uppercase-hex', mistake: 'the hex digest is written in upper case', fix: "write it in lower case (digest('hex') as it is, no toUpperCase(); %02x, not %02X)" },
  sha256: { id: 'sha256', mistake: 'the digest is SHA-256', fix: 'hash with SHA-512: sign is 128 hex characters' },
  'base64-digest': { id: 'base64-digest', mistake: 'the digest is written in base64', fix: 'write the SHA-512 digest as lowercase hex' },
  'form-encoding': {
    id: 'form-encoding',
    mistake: 'values are form-encoded (space as +, as URLSearchParams, PHP urlencode or Java URLEncoder write them)',
    fix: "encode each value exactly as JavaScript's encodeURIComponent: space as %20, letters, digits and - _ . ! ~ * ' ( ) left as they are (PHP rawurlencode)",
  },
  'values-not-encoded': { id: 'values-not-encoded', mistake: 'values are written without percent-encoding', fix: "percent-encode each value as JavaScript's encodeURIComponent does" },
  'fields-in-sent-order': { id: 'fields-in-sent-order', mistake: 'fields are joined in the order of the body instead of sorted by name', fix: 'sort the fields by name before joining them' },
  'amount-not-two-decimals': {
    id: 'amount-not-two-decimals',
    mistake: 'amount is written as the number prints (25 or 10.5) instead of with two decimals',
    fix: 'write amount with exactly two decimals (amount.toFixed(2): 25.00, 10.50)',
  },
  'metadata-keys-unsorted': {
    id: 'metadata-keys-unsorted',
    mistake: 'metadata is written with its keys in their own order (plain JSON.stringify)',
    fix: 'write metadata as compact JSON with the keys sorted at every level',
  },
  'sign-fields-included': { id: 'sign-fields-included', mistake: 'sign_type (or an empty sign) is part of the string to sign', fix: 'leave sign_type and sign out of the string to sign' },
  'empty-fields-included': { id: 'empty-fields-included', mistake: 'fields whose value is null, "" or {} are part of the string to sign', fix: 'leave out every field whose value is null, "" or {}' },
  'salt-missing': { id: 'salt-missing', mistake: 'the signing salt is not appended', fix: 'append "&" and your signing salt to the end of the string' },
  'salt-without-ampersand': { id: 'salt-without-ampersand', mistake: 'the signing salt is appended without "&" before it', fix: 'join the salt with "&": ...&product_type=...&<signing_salt>' },
};

/** One way of writing the fields part of the string to sign; the default way is the right one. */
interface FieldsWay {
  readonly encode: (text: string) => string;
  readonly sentOrder: boolean;
  readonly amountAsSent: boolean;
  readonly objectsAsSent: boolean;
  readonly signFields: 'none' | 'sign_type' | 'both';
  readonly emptyAs: 'left-out' | 'empty' | 'text';
}

const RIGHT_WAY: FieldsWay = { encode: encodeURIComponent, sentOrder: false, amountAsSent: false, objectsAsSent: false, signFields: 'none', emptyAs: 'left-out' };

const formEncode = (text: string): string => new URLSearchParams([['', text]]).toString().slice(1);
// split and join: about twice as quick as a global RegExp on long runs of spaces.
const spacesAsPlus = (encoded: string): string => encoded.split('%20').join('+');
const plusForSpace = (text: string): string => spacesAsPlus(encodeURIComponent(text));
const PHP_ESCAPES: Readonly<Record<string, string>> = { '!': '%21', "'": '%27', '(': '%28', ')': '%29', '*': '%2A', '~': '%7E' };
/** PHP urlencode: everything but letters, digits and - _ . is escaped, space as +. */
const phpUrlencode = (text: string): string => spacesAsPlus(encodeURIComponent(text).replace(/[!'()*~]/g, (ch) => PHP_ESCAPES[ch]!));
const notEncoded = (text: string): string => text;

const ENCODERS: readonly ((text: string) => string)[] = [encodeURIComponent, formEncode, plusForSpace, phpUrlencode, notEncoded];
const EMPTY_AS: readonly FieldsWay['emptyAs'][] = ['left-out', 'empty', 'text'];

/** Each mistake in the fields part, with the ways clients are seen to make it. */
const FIELD_MISTAKES: readonly { readonly id: SignatureMistakeId; readonly ways: readonly Partial<FieldsWay>[] }[] = [
  { id: 'form-encoding', ways: [{ encode: formEncode }, { encode: plusForSpace }, { encode: phpUrlencode }] },
  { id: 'fields-in-sent-order', ways: [{ sentOrder: true }] },
  { id: 'amount-not-two-decimals', ways: [{ amountAsSent: true }] },
  { id: 'metadata-keys-unsorted', ways: [{ objectsAsSent: true }] },
  { id: 'sign-fields-included', ways: [{ signFields: 'sign_type' }, { signFields: 'both' }] },
  { id: 'empty-fields-included', ways: [{ emptyAs: 'empty' }, { emptyAs: 'text' }] },
  { id: 'values-not-encoded', ways: [{ encode: notEncoded }] },
];

function valueWritten(name: string, value: unknown, way: FieldsWay): string {
  // The sign cannot be in the string it signs: a client that includes it signs a placeholder.
  if (name === 'sign') return '';
  if (isLeftOut(value)) return way.emptyAs === 'text' ? (typeof value === 'object' ? JSON.stringify(value) : String(value)) : '';
  if (name === 'amount' && way.amountAsSent && typeof value === 'number') return String(value);
  if (value !== null && typeof value === 'object' && way.objectsAsSent) return JSON.stringify(value);
  return signedValueText(name, value);
}

/** The one part of a way that changes how this value is written, as a number from 0 to 2. */
function variantOf(name: string, value: unknown, way: FieldsWay): number {
  if (isLeftOut(value)) return EMPTY_AS.indexOf(way.emptyAs);
  if (name === 'amount') return way.amountAsSent ? 1 : 0;
  return typeof value === 'object' && way.objectsAsSent ? 1 : 0;
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
    const slot = encoder * EMPTY_AS.length + variant;
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

/** The ways to try, fewest mistakes first: the right one, each mistake, each pair. */
const FIELD_CANDIDATES: readonly FieldsCandidate[] = [
  { patch: {}, mistakes: [] },
  ...FIELD_MISTAKES.flatMap((m) => m.ways.map((patch) => ({ patch, mistakes: [m.id] }))),
  ...FIELD_MISTAKES.flatMap((a, i) =>
    FIELD_MISTAKES.slice(i + 1).flatMap((b) => a.ways.flatMap((wa) => b.ways.map((wb) => ({ patch: { ...wa, ...wb }, mistakes: [a.id, b.id] })))),
  ),
];

/**
 * The most text one diagnosis hashes, in characters: under a millisecond of SHA-512. A string to
 * sign under 4 KiB gets every way tried; a longer one the likeliest (fewest mistakes) first, as far as this goes.
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
  try {
    for (const fields of FIELD_CANDIDATES) {
      // Fewest mistakes first: once a match is found, a way with as many cannot beat it.
      if (best && best.length <= digest.mistakes.length + fields.mistakes.length) continue;
      const pieces = writer.piecesOf(fields.patch);
      const key = pieces.join(',');
      // A mistake that changes nothing in this body cannot be told apart: the first (fewest) wins.
      if (seen.has(key)) continue;
      seen.add(key);
      if (writer.lengthOf(pieces) > budget) {
        untried = true;
        break;
      }
      const text = writer.text(pieces);
      budget -= text.length;
      // The endings share the fields part: hash it once and finish a copy per ending.
      const hash = createHash(digest.algorithm).update(text, 'utf8');
      for (const ending of endings) {
        const mistakes = [...digest.mistakes, ...fields.mistakes, ...ending.mistakes];
        if (best && best.length <= mistakes.length) continue;
        if (hash.copy().update(ending.text, 'utf8').digest(digest.encoding) === digest.value) best = mistakes;
      }
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
      'amount without two decimals, unsorted metadata keys, sign_type or sign in the string, empty fields included, salt missing or appended without &). ' +
      'Compare your string to sign with string_to_sign (the salt shown as <signing_salt>) character by character; if they are equal, check the salt you append.'
    );
  }
  const lead = mistakes.length === 1 ? 'Known mistake' : `${mistakes.length} known mistakes together`;
  return `${lead}: ${mistakes.map((m) => `[${m.id}] ${m.mistake}; fix: ${m.fix}.`).join(' ')}`;
}
