/**
 * Request signatures (sign_type SHA512): every field but sign and sign_type whose value is not
 * null, "" or {}, sorted by name, written name=encodeURIComponent(value), joined with "&",
 * then "&" and the merchant's signing salt; sign is the lowercase hex SHA-512 of that text.
 * JSON values (metadata) are written as RFC 8785 canonical JSON.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import { SandboxError } from './errors.js';
import { formatMinorUnits, toMinorUnits } from './money.js';

/** Written in canonical-json.ts; here too, for those who sign. */
export { canonicalJson };

export const SIGN_TYPES = ['SHA512'] as const;
export const SALT_MASK = '<signing_salt>';

/** A field whose value is null, "" or {} is left out of the string to sign. */
export function isLeftOut(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  return typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
}

/** A field's value as written (before encoding): amount with two decimals, objects as canonical JSON. */
export function signedValueText(name: string, value: unknown): string {
  if (name === 'amount' && typeof value === 'number') {
    const minor = toMinorUnits(value);
    return minor === undefined ? String(value) : formatMinorUnits(minor);
  }
  if (typeof value === 'object') return canonicalJson(value);
  return String(value);
}

/** The fields part of the string to sign, without the salt. */
export function fieldsToSign(body: Readonly<Record<string, unknown>>): string {
  return Object.keys(body)
    .filter((name) => name !== 'sign' && name !== 'sign_type' && !isLeftOut(body[name]))
    .sort()
    .map((name) => `${name}=${encodeField(name, signedValueText(name, body[name]))}`)
    .join('&');
}

/** A lone surrogate is valid JSON but no Unicode text, and cannot be encoded: refused, naming the field. */
function encodeField(name: string, text: string): string {
  try {
    return encodeURIComponent(text);
  } catch (err) {
    if (!(err instanceof URIError)) throw err;
    const field = JSON.stringify(name.slice(0, 64)).slice(1, -1);
    throw SandboxError.invalid(`${field} is not valid Unicode text: it holds half of a surrogate pair (such as \\ud800) alone; send whole characters only.`, [
      { field, message: 'not valid Unicode text (a lone surrogate)' },
    ]);
  }
}

export function stringToSign(body: Readonly<Record<string, unknown>>, salt: string): string {
  return `${fieldsToSign(body)}&${salt}`;
}

/** The string to sign as shown to integrators: the salt replaced by a placeholder. */
export function maskedStringToSign(body: Readonly<Record<string, unknown>>): string {
  return maskedFields(fieldsToSign(body));
}

/** The fields part (fieldsToSign) with the salt shown as a placeholder. */
export function maskedFields(fields: string): string {
  return `${fields}&${SALT_MASK}`;
}

/** The sign of a fields part (fieldsToSign), written once when both the sign and the masked string are needed. */
export function signFields(fields: string, salt: string): string {
  return createHash('sha512').update(`${fields}&${salt}`, 'utf8').digest('hex');
}

export function signBody(body: Readonly<Record<string, unknown>>, salt: string): string {
  return signFields(fieldsToSign(body), salt);
}
