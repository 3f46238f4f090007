/**
 * Webhook signatures (SPEC 18): each delivery attempt is signed with the merchant's webhook
 * secret (not its signing salt, which POST /sandbox/v1/tools/sign signs with), over the attempt's
 * timestamp and the body's bytes as sent, so a receiver can refuse an old replay and needs no
 * JSON canonicalisation.
 */
import { createHmac } from 'node:crypto';

/** The header that carries `t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
export const WEBHOOK_SIGNATURE_HEADER = 'Sandbox-Signature';

/** `t=<t>,v1=<lowercase hex HMAC-SHA256(secret, "<t>.<body>")>`: the value of Sandbox-Signature. */
export function webhookSignature(secret: string, unixSeconds: number, body: string): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.`).update(body, 'utf8').digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}
