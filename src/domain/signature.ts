/**
 * Request signatures (sign_type SHA512): every field but sign and sign_type whose value is not
 * null, "" or {}, sorted by name, written name=encodeURIComponent(value), joined with "&",
 * then "&" and the merchant's signing salt; sign is the lowercase hex SHA-512 of that text.
 */
import { createHash } from 'node:crypto';
import { formatMinorUnits, toMinorUnits } from './money.js';

export const SIGN_TYPES = ['SHA512'] as const;
export const SALT_MASK = '<signing_salt>';

/** Compact JSON with the keys of every object sorted, so both sides write metadata alike. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  return typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
}

function fieldText(name: string, value: unknown): string {
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
    .filter((name) => name !== 'sign' && name !== 'sign_type' && !isEmpty(body[name]))
    .sort()
    .map((name) => `${name}=${encodeURIComponent(fieldText(name, body[name]))}`)
    .join('&');
}

export function stringToSign(body: Readonly<Record<string, unknown>>, salt: string): string {
  return `${fieldsToSign(body)}&${salt}`;
}

/** The string to sign as shown to integrators: the salt replaced by a placeholder. */
export function maskedStringToSign(body: Readonly<Record<string, unknown>>): string {
  return `${fieldsToSign(body)}&${SALT_MASK}`;
}

export function signBody(body: Readonly<Record<string, unknown>>, salt: string): string {
  return createHash('sha512').update(stringToSign(body, salt), 'utf8').digest('hex');
}
