/** Unguessable identifiers: every id and secret carries at least 96 random bits (fault rule ids 72). */
import { createHash, hash, randomFillSync, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Crockford-style: no I, L, O, U, so a code read aloud or typed is not misread. */
const CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * CSPRNG bytes drawn 4 KiB at a time (as Node does for randomUUID): one small randomBytes call
 * costs ~5 us, a slice of the pool ~0.1 us. Every byte is handed out once.
 */
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolAt = POOL_SIZE;

/** Hands out the next `byteCount` bytes of the pool (refilled when short); answers where they start. */
function take(byteCount: number): number {
  if (poolAt + byteCount > POOL_SIZE) {
    randomFillSync(pool);
    poolAt = 0;
  }
  poolAt += byteCount;
  return poolAt - byteCount;
}

function randomBase64url(byteCount: number): string {
  const at = take(byteCount);
  return pool.toString('base64url', at, at + byteCount);
}

const randomByte = (): number => pool[take(1)]!;

/** Where randomText spells its characters: one string made at the end, not one per character. */
const spelled = Buffer.alloc(64);

function randomText(alphabet: string, length: number): string {
  // Rejection sampling keeps every character uniform: bytes at or above the last whole multiple
  // of the alphabet's size are drawn again.
  const limit = 256 - (256 % alphabet.length);
  for (let n = 0; n < length; ) {
    const b = randomByte();
    if (b < limit) spelled[n++] = alphabet.charCodeAt(b % alphabet.length);
  }
  return spelled.toString('latin1', 0, length);
}

/** 22 base62 characters: about 131 random bits. */
export const newPaymentId = (): string => `pay_${randomText(BASE62, 22)}`;
export const newPaymentToken = (): string => `ptok_${randomBase64url(24)}`;
/** 12 characters of a 32-letter alphabet: 60 bits, unique per store (checked on insert). */
export const newPaymentCode = (): string => randomText(CODE_ALPHABET, 12);
export const newApiKey = (): string => `sk_sandbox_${randomBase64url(24)}`;
export const newSigningSalt = (): string => randomBase64url(24);
/** 192 random bits: signs a merchant's webhook deliveries (HMAC-SHA256). */
export const newWebhookSecret = (): string => `whsec_${randomBase64url(24)}`;
export const newPayeeId = (): string => `payee_${randomText(BASE62, 16)}`;
export const newEventId = (): string => `evt_${randomBase64url(12)}`;
export const newDeliveryId = (): string => `whd_${randomBase64url(12)}`;
export const newRequestId = (): string => `req_${randomBase64url(12)}`;
/** 72 bits: it names a rule within one merchant's list of rules, it grants nothing by itself. */
export const newFaultRuleId = (): string => `flt_${randomBase64url(9)}`;

export const PAYMENT_ID_PATTERN = /^pay_[0-9A-Za-z]{22}$/;
export const PAYMENT_TOKEN_PATTERN = /^ptok_[0-9A-Za-z_-]{32}$/;

/**
 * What the stores keep of an API key: its SHA-256, hex. A fast hash is enough: keys carry 192
 * random bits (the demo keys are published anyway), so a slow password hash buys nothing and
 * would cost every request.
 */
export function apiKeyHash(apiKey: string): string {
  // Every request hashes its key: the keys of the last few hundred callers are hashed once (the
  // map is emptied when full, so a flood of made-up keys costs a hash each, as without it). Only
  // key-sized ones are kept (ours have 43 characters): a made-up 16 KB header is hashed, not held.
  if (apiKey.length > CACHED_KEY_LENGTH) return hash('sha256', apiKey, 'hex');
  let digest = recentKeyHashes.get(apiKey);
  if (digest === undefined) {
    if (recentKeyHashes.size >= RECENT_KEY_HASHES) recentKeyHashes.clear();
    recentKeyHashes.set(apiKey, (digest = hash('sha256', apiKey, 'hex')));
  }
  return digest;
}

const RECENT_KEY_HASHES = 512;
const CACHED_KEY_LENGTH = 128;
const recentKeyHashes = new Map<string, string>();

/** Whether `given` is `expected`, in time independent of both (even of their lengths): their SHA-256 digests compared. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(expected).digest());
}
