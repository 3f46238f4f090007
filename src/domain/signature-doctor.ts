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
const plusForSpace = (text: string): string => encodeURIComponent(text).replace(/%20/g, '+');
/** PHP urlencode: everything but letters, digits and - _ . is escaped, space as +. */
const phpUrlencode = (text: string): string =>
  encodeURIComponent(text)
    .replace(/[!'()*~]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');

/** Each mistake in the fields part, with the ways clients are seen to make it. */
const FIELD_MISTAKES: readonly { readonly id: SignatureMistakeId; readonly ways: readonly Partial<FieldsWay>[] }[] = [
  { id: 'form-encoding', ways: [{ encode: formEncode }, { encode: plusForSpace }, { encode: phpUrlencode }] },
  { id: 'fields-in-sent-order', ways: [{ sentOrder: true }] },
  { id: 'amount-not-two-decimals', ways: [{ amountAsSent: true }] },
  { id: 'metadata-keys-unsorted', ways: [{ objectsAsSent: true }] },
  { id: 'sign-fields-included', ways: [{ signFields: 'sign_type' }, { signFields: 'both' }] },
  { id: 'empty-fields-included', ways: [{ emptyAs: 'empty' }, { emptyAs: 'text' }] },
  { id: 'values-not-encoded', ways: [{ encode: (text) => text }] },
];

function valueWritten(name: string, value: unknown, way: FieldsWay): string {
  // The sign cannot be in the string it signs: a client that includes it signs a placeholder.
  if (name === 'sign') return '';
  if (isLeftOut(value)) return way.emptyAs === 'text' ? (typeof value === 'object' ? JSON.stringify(value) : String(value)) : '';
  if (name === 'amount' && way.amountAsSent && typeof value === 'number') return String(value);
  if (value !== null && typeof value === 'object' && way.objectsAsSent) return JSON.stringify(value);
  return signedValueText(name, value);
}

/** The one part of a way that changes how this value is written. */
function variantOf(name: string, value: unknown, way: FieldsWay): string {
  if (isLeftOut(value)) return way.emptyAs;
  if (name === 'amount') return String(way.amountAsSent);
  return typeof value === 'object' ? String(way.objectsAsSent) : '';
}

function includes(name: string, value: unknown, way: FieldsWay): boolean {
  if (name === 'sign') return way.signFields === 'both';
  if (name === 'sign_type') return way.signFields !== 'none';
  return way.emptyAs !== 'left-out' || !isLeftOut(value);
}

type FieldsWriter = (patch?: Partial<FieldsWay>) => string;

/**
 * Writes the fields part of one body in many ways. The ways share most pieces (a long metadata
 * is written and encoded once per variant, not once per way), so the pieces are remembered.
 */
function fieldsWriter(body: Readonly<Record<string, unknown>>): FieldsWriter {
  const pieces = new Map<string, string>();
  const encoders = new Map<(text: string) => string, string>();
  return (patch = {}) => {
    const way = { ...RIGHT_WAY, ...patch };
    if (!encoders.has(way.encode)) encoders.set(way.encode, String(encoders.size));
    const names = Object.keys(body).filter((name) => includes(name, body[name], way));
    if (!way.sentOrder) names.sort();
    return names
      .map((name) => {
        const key = `${encoders.get(way.encode)}:${variantOf(name, body[name], way)}:${name}`;
        let piece = pieces.get(key);
        if (piece === undefined) pieces.set(key, (piece = `${name}=${way.encode(valueWritten(name, body[name], way))}`));
        return piece;
      })
      .join('&');
  };
}

/** The fields part of the string to sign, written one way (no patch gives fieldsToSign). */
export function fieldsWrittenAs(body: Readonly<Record<string, unknown>>, patch: Partial<FieldsWay> = {}): string {
  return fieldsWriter(body)(patch);
}

/** How the sign sent is written tells the digest: no need to try them all. */
function digestOf(sign: string): { algorithm: 'sha512' | 'sha256'; encoding: 'hex' | 'base64'; mistakes: SignatureMistakeId[]; value: string } | null {
  const uppercase: SignatureMistakeId[] = /[A-F]/.test(sign) ? ['uppercase-hex'] : [];
  if (/^[0-9a-fA-F]{128}$/.test(sign)) return { algorithm: 'sha512', encoding: 'hex', mistakes: uppercase, value: sign.toLowerCase() };
  if (/^[0-9a-fA-F]{64}$/.test(sign)) return { algorithm: 'sha256', encoding: 'hex', mistakes: ['sha256', ...uppercase], value: sign.toLowerCase() };
  if (/^[A-Za-z0-9+/]{86}==$/.test(sign)) return { algorithm: 'sha512', encoding: 'base64', mistakes: ['base64-digest'], value: sign };
  return null;
}

/** The fields parts to try, fewest mistakes first: the right one, each mistake, each pair. */
function fieldCandidates(body: Readonly<Record<string, unknown>>): { text: string; mistakes: SignatureMistakeId[] }[] {
  const write = fieldsWriter(body);
  const seen = new Set<string>();
  const out: { text: string; mistakes: SignatureMistakeId[] }[] = [];
  const add = (patch: Partial<FieldsWay>, mistakes: SignatureMistakeId[]) => {
    const text = write(patch);
    // A mistake that changes nothing in this body cannot be told apart: the first (fewest) wins.
    if (seen.has(text)) return;
    seen.add(text);
    out.push({ text, mistakes });
  };
  add({}, []);
  for (const m of FIELD_MISTAKES) for (const way of m.ways) add(way, [m.id]);
  for (let i = 0; i < FIELD_MISTAKES.length; i++) {
    for (let j = i + 1; j < FIELD_MISTAKES.length; j++) {
      const a = FIELD_MISTAKES[i]!;
      const b = FIELD_MISTAKES[j]!;
      for (const wa of a.ways) for (const wb of b.ways) add({ ...wa, ...wb }, [a.id, b.id]);
    }
  }
  return out;
}

/**
 * The known mistakes that turn this body into the sign sent, or null when none does (or the
 * sign is right). Tries at most a few dozen small strings, only after a mismatch.
 */
export function diagnoseSignature(body: Readonly<Record<string, unknown>>, salt: string, sign: string): readonly SignatureMistake[] | null {
  const digest = digestOf(sign);
  if (!digest) return null;
  const endings: { text: string; mistakes: SignatureMistakeId[] }[] = [
    { text: `&${salt}`, mistakes: [] },
    { text: '', mistakes: ['salt-missing'] },
    { text: salt, mistakes: ['salt-without-ampersand'] },
  ];
  let candidates: ReturnType<typeof fieldCandidates>;
  try {
    candidates = fieldCandidates(body);
  } catch (err) {
    // A lone surrogate cannot be percent-encoded: no way of signing such a body is known.
    if (err instanceof URIError) return null;
    throw err;
  }
  let best: SignatureMistakeId[] | undefined;
  for (const fields of candidates) {
    // The endings share the fields part: hash it once and finish a copy per ending.
    const hash = createHash(digest.algorithm).update(fields.text, 'utf8');
    for (const ending of endings) {
      const mistakes = [...digest.mistakes, ...fields.mistakes, ...ending.mistakes];
      if (best && best.length <= mistakes.length) continue;
      if (hash.copy().update(ending.text, 'utf8').digest(digest.encoding) === digest.value) best = mistakes;
    }
  }
  return !best || best.length === 0 ? null : best.map((id) => SIGNATURE_MISTAKES[id]);
}

/** The `signature_hint` of a mismatch: the mistakes named with their fixes, or where to look. */
export function signatureHint(mistakes: readonly SignatureMistake[] | null): string {
  if (!mistakes || mistakes.length === 0) {
    return (
      'No known mistake matches this sign (checked: upper-case hex, SHA-256 or base64 digest, form encoding with +, unencoded values, fields in the order sent, ' +
      'amount without two decimals, unsorted metadata keys, sign_type or sign in the string, empty fields included, salt missing or appended without &). ' +
      'Compare your string to sign with string_to_sign (the salt shown as <signing_salt>) character by character; if they are equal, check the salt you append.'
    );
  }
  const lead = mistakes.length === 1 ? 'Known mistake' : `${mistakes.length} known mistakes together`;
  return `${lead}: ${mistakes.map((m) => `[${m.id}] ${m.mistake}; fix: ${m.fix}.`).join(' ')}`;
}
