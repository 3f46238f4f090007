/**
 * The signature doctor: when a sign does not match, rebuild it the ways integrators commonly get
 * it wrong and name the mistakes whose result equals the sign sent. Pure: no I/O, no HTTP.
 */
import { createHash } from 'node:crypto';
import { floatText, httpBuildQuery, jsonWritten, phpRawurlencode, phpUrlencode } from './language-writers.js';
import type { JsonStyle } from './language-writers.js';
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
  readonly booleans: 'json' | 'python' | 'php';
  readonly signFields: 'none' | 'sign_type' | 'both';
  readonly emptyAs: 'left-out' | 'empty' | 'text';
}

const RIGHT_WAY: FieldsWay = { encode: encodeURIComponent, sentOrder: false, amountAsSent: false, json: 0, booleans: 'json', signFields: 'none', emptyAs: 'left-out' };

const JSON_FLAGS: Readonly<Record<keyof JsonStyle, SignatureMistakeId>> = {
  unsorted: 'metadata-keys-unsorted',
  unicodeEscaped: 'json-unicode-escaped',
  spaced: 'json-spaced-separators',
  slashesEscaped: 'json-escaped-slashes',
  wholeAsFloat: 'numbers-with-fraction',
};
/** The JSON mistakes alone and as Python's json.dumps and PHP's json_encode make them together (index 0: RFC 8785). */
const JSON_STYLES: readonly { readonly style: JsonStyle; readonly ids: readonly SignatureMistakeId[] }[] = (
  [
    [],
    ['unsorted'],
    ['unicodeEscaped'],
    ['spaced'],
    ['slashesEscaped'],
    ['wholeAsFloat'],
    ['spaced', 'unicodeEscaped'],
    ['spaced', 'unicodeEscaped', 'wholeAsFloat'],
    ['spaced', 'unicodeEscaped', 'unsorted'],
    ['spaced', 'unicodeEscaped', 'unsorted', 'wholeAsFloat'],
    ['spaced', 'wholeAsFloat'],
    ['unicodeEscaped', 'wholeAsFloat'],
    ['slashesEscaped', 'unicodeEscaped'],
    ['slashesEscaped', 'unicodeEscaped', 'unsorted'],
  ] as const
).map((flags: readonly (keyof JsonStyle)[]) => ({ style: Object.fromEntries(flags.map((f) => [f, true])), ids: flags.map((f) => JSON_FLAGS[f]) }));

const formEncode = (text: string): string => new URLSearchParams([['', text]]).toString().slice(1);
const plusForSpace = (text: string): string => encodeURIComponent(text).replace(/%20/g, '+');

/** Each mistake in the fields part (or several made together), with the ways clients are seen to make it. */
// A JSON mistake is tried with another only where it is seen with it (pairs: json with the first four), to keep a diagnosis cheap.
const FIELD_MISTAKES: readonly { readonly ids: readonly SignatureMistakeId[]; readonly ways: readonly Partial<FieldsWay>[]; readonly json?: 'is' | 'pairs' }[] = [
  { ids: ['form-encoding'], ways: [{ encode: formEncode }, { encode: plusForSpace }, { encode: phpUrlencode }], json: 'pairs' },
  { ids: ['php-rawurlencode'], ways: [{ encode: phpRawurlencode }], json: 'pairs' },
  { ids: ['fields-in-sent-order'], ways: [{ sentOrder: true }], json: 'pairs' },
  { ids: ['amount-not-two-decimals'], ways: [{ amountAsSent: true }], json: 'pairs' },
  ...JSON_STYLES.slice(1).map(({ ids }, i) => ({ ids, ways: [{ json: i + 1 }], json: 'is' as const })),
  { ids: ['booleans-not-true-false'], ways: [{ booleans: 'python' as const }, { booleans: 'php' as const }] },
  { ids: ['sign-fields-included'], ways: [{ signFields: 'sign_type' }, { signFields: 'both' }] },
  { ids: ['empty-fields-included'], ways: [{ emptyAs: 'empty' }, { emptyAs: 'text' }] },
  { ids: ['values-not-encoded'], ways: [{ encode: (text) => text }] },
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

/** The one part of a way that changes how this value is written. */
function variantOf(name: string, value: unknown, way: FieldsWay): string {
  if (isLeftOut(value)) return way.emptyAs;
  if (name === 'amount') return String(way.amountAsSent);
  if (typeof value === 'boolean') return way.booleans;
  return typeof value === 'object' || typeof value === 'number' ? String(way.json) : '';
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

/** The mistakes that change something in this body: a JSON style only where it writes the body unlike every style with fewer mistakes. */
function mistakesFor(body: Readonly<Record<string, unknown>>): typeof FIELD_MISTAKES {
  const values = Object.entries(body).filter(([name, v]) => name !== 'amount' && !isLeftOut(v) && (typeof v === 'object' || typeof v === 'number'));
  const booleans = Object.values(body).some((v) => typeof v === 'boolean');
  const written = new Set<string>();
  const styles = new Set<number>();
  JSON_STYLES.forEach(({ style }, i) => {
    const text = values.map(([, v]) => (typeof v === 'number' ? (style.wholeAsFloat ? floatText(v) : String(v)) : jsonWritten(v, style))).join('\n');
    if (!written.has(text)) styles.add(i);
    written.add(text);
  });
  return FIELD_MISTAKES.filter((m) => (m.json !== 'is' || styles.has(m.ways[0]!.json!)) && (booleans || !m.ids.includes('booleans-not-true-false')));
}

/** The fields parts to try, fewest mistakes first: the right one, each mistake, each pair. */
function fieldCandidates(body: Readonly<Record<string, unknown>>): { text: string; mistakes: SignatureMistakeId[] }[] {
  const write = fieldsWriter(body);
  const mistakes = mistakesFor(body);
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
  for (const m of mistakes) for (const way of m.ways) add(way, [...m.ids]);
  for (let i = 0; i < mistakes.length; i++) {
    for (let j = i + 1; j < mistakes.length; j++) {
      const a = mistakes[i]!;
      const b = mistakes[j]!;
      if ((a.json === 'is' || b.json === 'is') && !(a.json === 'pairs' || b.json === 'pairs')) continue;
      for (const wa of a.ways) for (const wb of b.ways) add({ ...wa, ...wb }, [...a.ids, ...b.ids]);
    }
  }
  // http_build_query writes the whole fields part its own way (amount as the integration formatted it, two decimals or not).
  const amount = typeof body.amount === 'number' ? signedValueText('amount', body.amount) : undefined;
  for (const order of ['sorted', 'sorted-nested', 'sent'] as const) {
    for (const amountText of [amount, undefined]) {
      const mistakes: SignatureMistakeId[] = ['php-http-build-query', ...(order === 'sent' ? ['fields-in-sent-order' as const] : []), ...(amountText ? [] : ['amount-not-two-decimals' as const])];
      const text = httpBuildQuery(body, amountText, order);
      if (!seen.has(text)) out.push({ text, mistakes });
      seen.add(text);
    }
  }
  if (process.env.DOCTOR_COUNT) console.log("candidates", out.length);
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
      'amount without two decimals, unsorted metadata keys, metadata JSON with \\uXXXX escapes, ", " separators, \\/ or 7.0, booleans as True or 1, PHP rawurlencode or http_build_query, ' +
      'sign_type or sign in the string, empty fields included, salt missing or appended without &). ' +
      'Compare your string to sign with string_to_sign (the salt shown as <signing_salt>) character by character; if they are equal, check the salt you append.'
    );
  }
  const lead = mistakes.length === 1 ? 'Known mistake' : `${mistakes.length} known mistakes together`;
  return `${lead}: ${mistakes.map((m) => `[${m.id}] ${m.mistake}; fix: ${m.fix}.`).join(' ')}`;
}
