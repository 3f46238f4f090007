/**
 * POST /sandbox/v1/merchants: self-service enrolment, optionally behind an admin token;
 * DELETE /sandbox/v1/merchant: a merchant deletes itself with its own key.
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import { SandboxError } from '../../domain/errors.js';
import { sameSecret } from '../../domain/ids.js';
import { clientAddress } from '../client-address.js';
import { readJsonObject, validate } from '../body.js';
import type { AppEnv } from '../context.js';
import { ok } from '../envelope.js';
import { enrollSchema } from '../schemas.js';
import type { Merchant } from '../../domain/merchant.js';
import { DEMO_MERCHANTS } from '../../services/merchants.js';
import type { EnrollInput, MerchantDeletion } from '../../services/merchants.js';
import type { z } from 'zod';
import { shownBytes } from '../../services/storage-refusals.js';

/** What a merchant may see of itself: never its keys or signing salt. */
export function merchantProfile(merchant: Merchant): Record<string, unknown> {
  return {
    payee_id: merchant.payeeId,
    home_currency: merchant.homeCurrency,
    name: merchant.name,
    city: merchant.city,
    country_code: merchant.countryCode,
    mcc: merchant.mcc,
    require_signature: merchant.settings.requireSignature,
    rate_limit_per_second: merchant.settings.rateLimitPerSecond,
    inline_qr_image: merchant.settings.inlineQrImage,
    auto_settle: merchant.settings.autoSettle,
    qr_ttl_seconds: merchant.settings.qrTtlSeconds,
  };
}

/** GET /sandbox/v1/merchant: the key's own merchant (payee id, settings, its own storage usage), for tools and the dashboard. */
export function ownMerchantRoutes(): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/merchant', async (c) => {
    const { merchants, store, config } = c.get('services');
    const merchant = await merchants.current(c.get('merchant'));
    // Its own bytes only: the sandbox's total is other merchants' business.
    const { merchantBytes } = await store.storageUsage(merchant.payeeId);
    const storage = { used_bytes: merchantBytes, quota_bytes: config.storage.merchantBytes };
    return ok(c, `This key belongs to merchant ${merchant.name}, payee ${merchant.payeeId}; its stored records take ${shownBytes(merchantBytes)} of its ${shownBytes(config.storage.merchantBytes)} quota.`, {
      ...merchantProfile(merchant),
      storage,
    });
  });
  return routes;
}

/** Without an admin token, each client address may enroll a few merchants in any minute (a sliding window, SPEC 15). */
async function limitEnrolment(c: Context<AppEnv>): Promise<void> {
  const { config, store, merchants } = c.get('services');
  if (config.adminToken !== undefined || config.enrollLimitPerMinute <= 0) return;
  const client = clientAddress(c, config.trustProxy);
  if (client === 'in-process') return;
  const wait = await store.rateWindows.take(`enroll:${client}`, config.enrollLimitPerMinute, 60_000, merchants.realNow());
  if (wait > 0) {
    throw SandboxError.rateLimited(`Enrolment limit reached: ${config.enrollLimitPerMinute} merchants per minute from one client; retry after ${wait} s (see Retry-After), or reuse a merchant you enrolled (POST /sandbox/v1/reset erases its payments).`, wait);
  }
}

/** Wrong admin tokens a client may send in any minute; past that every attempt waits, the right token too (else the answer would tell it). */
export const ADMIN_TOKEN_ATTEMPTS_PER_MINUTE = 10;

/** Behind SANDBOX_ADMIN_TOKEN: the token, compared in constant time, and wrong ones limited per client address. */
async function checkAdminToken(c: Context<AppEnv>, adminToken: string): Promise<void> {
  const { config, store, merchants } = c.get('services');
  const client = clientAddress(c, config.trustProxy);
  const limited = client !== 'in-process';
  const key = `admin-token:${client}`;
  const refuse = (wait: number) =>
    SandboxError.rateLimited(`Too many wrong admin tokens: ${ADMIN_TOKEN_ATTEMPTS_PER_MINUTE} a minute from one client; retry after ${wait} s (see Retry-After) with Authorization: Bearer <SANDBOX_ADMIN_TOKEN>.`, wait);
  const waiting = limited ? await store.rateWindows.wait(key, ADMIN_TOKEN_ATTEMPTS_PER_MINUTE, 60_000, merchants.realNow()) : 0;
  if (waiting > 0) throw refuse(waiting);
  const header = c.req.header('authorization') ?? '';
  const token = header.startsWith('Bearer ') ? header.slice(7) : '';
  if (sameSecret(token, adminToken)) return;
  // Another instance may have filled the window meanwhile: then this attempt is refused as over it.
  const over = limited ? await store.rateWindows.take(key, ADMIN_TOKEN_ATTEMPTS_PER_MINUTE, 60_000, merchants.realNow()) : 0;
  if (over > 0) throw refuse(over);
  throw SandboxError.unauthenticated('Enrolment on this sandbox needs the admin token: send Authorization: Bearer <SANDBOX_ADMIN_TOKEN>.');
}

export function merchantRoutes(): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.post('/merchants', async (c) => {
    const { config, merchants } = c.get('services');
    if (config.adminToken !== undefined) await checkAdminToken(c, config.adminToken);
    await limitEnrolment(c);
    const input = validate(c, enrollSchema, await readJsonObject(c, true));
    const { merchant, apiKey } = await merchants.enroll(enrollInputOf(input));
    return ok(c, `Merchant ${merchant.name} enrolled: send api_key as the Service-Api-Key header and payee_id as payee. Keep signing_salt secret; it is shown only now.`, {
      api_key: apiKey,
      signing_salt: merchant.signingSalt,
      ...merchantProfile(merchant),
    });
  });
  // Beside enrolment, not behind the keyed middleware: its journal would write an entry for the merchant just deleted.
  routes.delete('/merchant', async (c) => {
    const { merchants } = c.get('services');
    const merchant = await merchants.authenticate(c.req.header('service-api-key'));
    c.set('merchant', merchant);
    const erased = await merchants.deleteMerchant(merchant);
    return ok(c, deletedDescription(merchant, erased), {
      payee_id: merchant.payeeId,
      erased: {
        payments: erased.payments,
        journal_entries: erased.journalEntries,
        deliveries: erased.deliveries,
        fault_rules: erased.faultRules,
        api_keys: erased.apiKeys,
      },
    });
  });
  return routes;
}

function deletedDescription(merchant: Merchant, erased: MerchantDeletion): string {
  const demo = DEMO_MERCHANTS.some((d) => d.payeeId === merchant.payeeId) ? ' The next start of the sandbox enrolls this demo merchant again, empty.' : '';
  return (
    `Merchant ${merchant.name} (payee ${merchant.payeeId}) is deleted with ${count(erased.payments, 'payment')}, ${count(erased.journalEntries, 'journal entry', 'journal entries')}, ` +
    `${count(erased.deliveries, 'webhook delivery', 'webhook deliveries')}, ${count(erased.faultRules, 'fault rule')}, its idempotency keys, readiness evidence and sandbox clock, and ${count(erased.apiKeys, 'API key')}: ` +
    `the key now answers 401 like an unknown one, and the payer pages of its payments 404. Enroll again with POST /sandbox/v1/merchants.${demo}`
  );
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The enrolment body (its API field names) as the merchant service takes it; the library's control.enroll uses it too. */
export function enrollInputOf(input: z.output<typeof enrollSchema>): EnrollInput {
  return {
    name: input.name ?? undefined,
    city: input.city ?? undefined,
    homeCurrency: input.home_currency ?? undefined,
    requireSignature: input.require_signature ?? undefined,
    rateLimitPerSecond: input.rate_limit_per_second ?? undefined,
    inlineQrImage: input.inline_qr_image ?? undefined,
    autoSettle: input.auto_settle ?? undefined,
    qrTtlSeconds: input.qr_ttl_seconds ?? undefined,
  };
}
