/** The 402s of the storage rule (store/storage-quota.ts): what was refused, why, and what frees space. */
import { SandboxError } from '../domain/errors.js';
import { fairShare, holdersWith, leastFairShare, MIB } from '../store/storage-quota.js';
import type { StorageLimits, StorageRefusal, StorageUsage } from '../store/storage-quota.js';

/** Bytes as a person reads them, with the exact count. */
export function shownBytes(bytes: number): string {
  return `${(bytes / MIB).toFixed(2)} MB (${bytes} bytes)`;
}

const FREE_SPACE =
  'POST /sandbox/v1/reset erases its payments, journal, deliveries, idempotency keys and readiness evidence; ' +
  'on a sandbox run with SANDBOX_RETENTION_DAYS, ended payments older than that go by themselves; DELETE /sandbox/v1/merchant deletes the merchant with all it holds';

/** Enrolment refused: one more merchant holding data would make the fair shares too small (said without any figure of other merchants). */
export function sharesTooSmallError(limits: StorageLimits): SandboxError {
  const least = leastFairShare(limits);
  return SandboxError.refused(
    `This sandbox's storage budget (SANDBOX_STORAGE_MB) is shared by so many merchants holding data that one more would leave each a fair share under ${shownBytes(least)}, ` +
      'so no merchant can be enrolled now. Try again later, or reuse a merchant you enrolled (POST /sandbox/v1/reset erases its records).',
  );
}

/** Why a create was refused, with the merchant's own usage and its quota or fair share. */
export function createRefusedError(refusal: StorageRefusal, usage: StorageUsage, paymentBytes: number, limits: StorageLimits): SandboxError {
  if (refusal === 'fair_share') {
    const share = fairShare(limits, holdersWith(usage));
    return SandboxError.refused(
      `This sandbox is full: its stored records reached its storage budget (SANDBOX_STORAGE_MB), so each merchant keeps at most its fair share, ${shownBytes(share)} now ` +
        `(the budget divided among the merchants holding data). This merchant's stored records take ${shownBytes(usage.merchantBytes)}, and this payment (${paymentBytes} bytes) does not fit. ` +
        `Free space: ${FREE_SPACE}.`,
    );
  }
  return SandboxError.refused(
    `This merchant's stored records take ${shownBytes(usage.merchantBytes)} of its storage quota of ${shownBytes(limits.merchantBytes)} (SANDBOX_MERCHANT_STORAGE_MB), ` +
      `and this payment (${paymentBytes} bytes) does not fit. Free space: ${FREE_SPACE}.`,
  );
}
