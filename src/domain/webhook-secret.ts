/**
 * The webhook secret (SPEC 18): made with each new URL, shown once, rotatable, and what it signs.
 * Each delivery attempt is signed with it (not with the signing salt, which POST
 * /sandbox/v1/tools/sign signs with) over the attempt's timestamp and the body's bytes as sent,
 * so a receiver can refuse an old replay and needs no JSON canonicalisation.
 */
import { createHmac } from 'node:crypto';
import { newWebhookSecret } from './ids.js';
import type { Merchant } from './merchant.js';
import type { WebhookFaults } from './webhook-drills.js';

/** The header that carries `t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
export const WEBHOOK_SIGNATURE_HEADER = 'Sandbox-Signature';

/** `t=<t>,v1=<lowercase hex HMAC-SHA256(secret, "<t>.<body>")>`: the value of Sandbox-Signature. */
export function webhookSignature(secret: string, unixSeconds: number, body: string): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.`).update(body, 'utf8').digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}

/** The merchant after a change of its webhook settings, and the secret when the change made one (it is shown once). */
export interface WebhookSettingsChange {
  readonly merchant: Merchant;
  readonly secret: string | null;
}

/**
 * Sets the URL (null: off) and the drills; what is left out keeps what was set before. A URL
 * other than the one set makes a new secret (a secret leaked with the old URL signs nothing for
 * the new one); the same URL, or drills alone, keep it. Off keeps it: retries still go out.
 */
export function withWebhookSettings(current: Merchant, changes: { readonly url?: string | null; readonly faults?: WebhookFaults }): WebhookSettingsChange {
  const url = changes.url === undefined ? (current.webhookUrl ?? null) : changes.url;
  const secret = url !== null && (url !== current.webhookUrl || !current.webhookSecret) ? newWebhookSecret() : null;
  const merchant: Merchant = {
    ...current,
    ...(changes.url !== undefined ? { webhookUrl: changes.url } : {}),
    ...(changes.faults ? { webhookFaults: changes.faults } : {}),
    ...(secret ? { webhookSecret: secret } : {}),
  };
  return { merchant, secret };
}

/** The merchant with a new secret, or null without a URL (nothing to sign for). */
export function withRotatedSecret(current: Merchant): WebhookSettingsChange | null {
  if (!current.webhookUrl) return null;
  const secret = newWebhookSecret();
  return { merchant: { ...current, webhookSecret: secret }, secret };
}

/** The merchant with a secret: as it is when it has one, else with a new one (stored before secrets existed). */
export function withWebhookSecret(current: Merchant): { readonly merchant: Merchant; readonly secret: string } {
  if (current.webhookSecret) return { merchant: current, secret: current.webhookSecret };
  const secret = newWebhookSecret();
  return { merchant: { ...current, webhookSecret: secret }, secret };
}

/** The merchant with a listener secret (SPEC 22): as it is when it has one, else with a new one. */
export function withListener(current: Merchant): { readonly merchant: Merchant; readonly secret: string } {
  if (current.listenerSecret) return { merchant: current, secret: current.listenerSecret };
  const secret = newWebhookSecret();
  return { merchant: { ...current, listenerSecret: secret }, secret };
}
