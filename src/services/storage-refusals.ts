/** The 402s of the storage rule (store/storage-quota.ts): what was refused, why, and what frees space. */
import { SandboxError } from '../domain/errors.js';
import { MIB } from '../store/storage-quota.js';
import type { StorageLimits, StorageRefusal } from '../store/storage-quota.js';

/** Bytes as a person reads them, with the exact count. */
export function shownBytes(bytes: number): string {
  return `${(bytes / MIB).toFixed(2)} MB (${bytes} bytes)`;
}

const FREE_SPACE =
  'POST /sandbox/v1/reset erases its payments, journal, deliveries, idempotency keys and readiness evidence; ' +
  'on a sandbox run with SANDBOX_RETENTION_DAYS, ended payments older than that go by themselves; DELETE /sandbox/v1/merchant deletes the merchant with all it holds';

/** The sandbox is full: said without any figure of other merchants. */
export function sandboxFullError(what: string): SandboxError {
  return SandboxError.refused(
    `This sandbox is full: its stored records reached its storage budget (SANDBOX_STORAGE_MB), so ${what}. ` +
      `Try again later, or make room in your own merchant (${FREE_SPACE}).`,
  );
}

/** Why a create was refused, with the merchant's own usage and quota. */
export function createRefusedError(refusal: StorageRefusal, usedBytes: number, paymentBytes: number, limits: StorageLimits): SandboxError {
  if (refusal === 'sandbox_budget') return sandboxFullError('no payment can be created now');
  return SandboxError.refused(
    `This merchant's stored records take ${shownBytes(usedBytes)} of its storage quota of ${shownBytes(limits.merchantBytes)} (SANDBOX_MERCHANT_STORAGE_MB), ` +
      `and this payment (${paymentBytes} bytes) does not fit. Free space: ${FREE_SPACE}.`,
  );
}
