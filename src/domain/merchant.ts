/** A merchant (payee) of the sandbox, with its keys and settings. */
import type { FaultRule } from './faults.js';
import type { WebhookFaults } from './webhook-drills.js';

export interface MerchantSettings {
  readonly requireSignature: boolean;
  /** Seconds a payment stays P or W before it expires. */
  readonly qrTtlSeconds: number;
  /** Settle paid payments at the first UTC midnight of the merchant's clock after payment. */
  readonly autoSettle: boolean;
  /** Requests per second for this key; 0 is no limit. */
  readonly rateLimitPerSecond: number;
  /** Create answers qr_data.image as a PNG data URL (costs ~12 ms of CPU per create). */
  readonly inlineQrImage: boolean;
}

export interface Merchant {
  readonly payeeId: string;
  readonly name: string;
  readonly city: string;
  readonly countryCode: string;
  readonly mcc: string;
  readonly homeCurrency: string;
  /** SHA-256 of each API key (ids.ts apiKeyHash): a key is shown once, at enrolment, and never stored. */
  readonly apiKeyHashes: readonly string[];
  readonly signingSalt: string;
  readonly settings: MerchantSettings;
  /** Milliseconds the merchant's sandbox clock runs ahead of real time. */
  readonly clockOffsetMs: number;
  readonly createdAt: number;
  /** Fault rules of the control API; absent on merchants stored before rules existed. */
  readonly faultRules?: readonly FaultRule[];
  /** Where each state change is POSTed; absent or null is no webhook. */
  readonly webhookUrl?: string | null;
  /** Signs deliveries (whsec_...); made with each new URL, kept when the URL is turned off (retries still go out); absent on merchants stored before it existed. */
  readonly webhookSecret?: string;
  /**
   * Signs what goes to `payreq-sandbox listen` listeners (SPEC 22), apart from the URL's secret so
   * that the key, which the stream shows it to, never learns the one a public receiver trusts. Made
   * when a listener first connects; from then on events are kept as deliveries for listeners, URL or not.
   */
  readonly listenerSecret?: string;
  /** Webhook drills: duplicates, reordering, delay (absent: none). */
  readonly webhookFaults?: WebhookFaults;
  /** Real ms its key was last used, written at most hourly, and only while idle merchants expire (absent: never written). */
  readonly lastUsedAt?: number;
}

export const DEFAULT_SETTINGS: MerchantSettings = {
  requireSignature: false,
  qrTtlSeconds: 15 * 60,
  autoSettle: true,
  rateLimitPerSecond: 0,
  inlineQrImage: false,
};

/** The merchant as a reset leaves it (no fault rules, its clock at real time), or null when it already is so. */
export function afterReset(m: Merchant): Merchant | null {
  if (m.clockOffsetMs === 0 && (m.faultRules?.length ?? 0) === 0) return null;
  return { ...m, clockOffsetMs: 0, faultRules: [] };
}
