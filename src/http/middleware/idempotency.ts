/**
 * Idempotency-Key on POSTs (SPEC 16): the first answer is kept per merchant and key, and a
 * retry with the same key and the same request gets it again (`Idempotent-Replayed: true`)
 * instead of making a second change, also when the first answer was lost to a fault after the
 * change committed. The same key with another request is a 400; a retry while the first is still
 * running is a 402. Answers that committed nothing (5xx, 429, an injected `error=`) are not
 * kept, so the retry runs. The key is claimed before the request waits for anything (an injected
 * latency included), so the faults run inside this; the faults after commit spoil, hold or cut
 * the answer only once it is kept here.
 */
import type { Context } from 'hono';
import { canonicalJson } from '../../domain/canonical-json.js';
import { SandboxError } from '../../domain/errors.js';
import { STILL_IN_PROGRESS } from '../../domain/readiness.js';
import type { ResponseCode } from '../../domain/codes.js';
import { readBodyText } from '../body.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../domain/json-depth.js';
import type { AppEnv } from '../context.js';
import type { Merchant } from '../../domain/merchant.js';
import { envelopeCodeOf, envelopeOf, sendText } from '../envelope.js';

/** What an Idempotency-Key may be: 1-255 printable ASCII characters. */
export const IDEMPOTENCY_KEY = /^[\x20-\x7E]{1,255}$/;

export const REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * Runs `run` under the request's Idempotency-Key (a POST to a route the app serves with its
 * method: a typo's 404 or a wrong method's 405 neither uses a key up nor is refused by one).
 * `run` answers false when a fault answered before anything ran: nothing to keep.
 */
export async function withIdempotencyKey(c: Context<AppEnv>, merchant: Merchant, key: string, run: () => Promise<boolean>): Promise<void> {
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw SandboxError.invalid(
      'Idempotency-Key must be 1 to 255 printable ASCII characters (space to ~), and the one sent is not: send one value per operation (a UUID does) and the same value on every retry of it.',
    );
  }
  const { idempotency, merchants } = c.get('services');
  const fingerprint = `${c.req.method} ${c.req.path} ${canonicalBody(await readBodyText(c))}`;
  const verdict = await idempotency.begin(merchant.payeeId, key, fingerprint, merchants.now(merchant), merchants.realNow());
  if (verdict.kind === 'mismatch') {
    throw SandboxError.invalid(
      `Idempotency-Key ${JSON.stringify(key)} was already used for another request (another route or body) in the last 24 hours: a retry must repeat the first request exactly; a new operation needs a new key.`,
    );
  }
  if (verdict.kind === 'in_progress') {
    throw SandboxError.refused(`The request with Idempotency-Key ${JSON.stringify(key)} ${STILL_IN_PROGRESS}, and you will get its answer.`);
  }
  if (verdict.kind === 'done') {
    c.res = sendText(c, verdict.code as ResponseCode, verdict.body, { [REPLAYED_HEADER]: 'true' });
    return;
  }

  let kept = false;
  try {
    if (await run()) kept = await keepAnswer(c, merchant.payeeId, key);
  } finally {
    if (!kept) await idempotency.forget(merchant.payeeId, key);
  }
}

/** Keeps this request's answer for its key; false for one that committed nothing (a 5xx, a 429: retry later). */
async function keepAnswer(c: Context<AppEnv>, payeeId: string, key: string): Promise<boolean> {
  const text = envelopeOf(c)?.text;
  const code = text === undefined ? null : envelopeCodeOf(text);
  if (text === undefined || code === null || code >= 500 || code === 429) return false;
  await c.get('services').idempotency.finish(payeeId, key, code, text);
  return true;
}

/** The body as compared: its canonical JSON, or the text as sent. */
function canonicalBody(text: string): string {
  if (text.trim() === '') return '';
  // Too deep to be accepted: compared as sent rather than parsed at several times a flat body's cost.
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return text;
  try {
    return canonicalJson(JSON.parse(text));
  } catch {
    return text;
  }
}

