/** Unguessable identifiers: every id and secret carries at least 96 random bits. */
import { randomBytes, randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Crockford-style: no I, L, O, U, so a code read aloud or typed is not misread. */
const CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function randomText(alphabet: string, length: number): string {
  // Rejection sampling through randomInt keeps every character uniform.
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** 22 base62 characters: about 131 random bits. */
export const newPaymentId = (): string => `pay_${randomText(BASE62, 22)}`;
export const newPaymentToken = (): string => `ptok_${randomBytes(24).toString('base64url')}`;
/** 12 characters of a 32-letter alphabet: 60 bits, unique per store (checked on insert). */
export const newPaymentCode = (): string => randomText(CODE_ALPHABET, 12);
export const newApiKey = (): string => `sk_sandbox_${randomBytes(24).toString('base64url')}`;
export const newSigningSalt = (): string => randomBytes(24).toString('base64url');
export const newPayeeId = (): string => `payee_${randomText(BASE62, 16)}`;

export const PAYMENT_ID_PATTERN = /^pay_[0-9A-Za-z]{22}$/;
export const PAYMENT_TOKEN_PATTERN = /^ptok_[0-9A-Za-z_-]{32}$/;
