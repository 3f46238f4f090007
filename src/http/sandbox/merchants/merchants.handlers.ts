/**
 * Enrolment (optionally behind an admin token), the key's own merchant, and a merchant deleting
 * itself with its own key.
 */
import type { z } from 'zod';
import type { Merchant } from '../../../domain/merchant.js';
import { DEMO_MERCHANTS } from '../../../services/merchants.js';
import type { EnrollInput, MerchantDeletion } from '../../../services/merchants.js';
import { shownBytes } from '../../../services/storage-refusals.js';
import type { AppEnv } from '../../context.js';
import { bodyOf } from '../../contract/input.js';
import type { RouteHandler } from '../../contract/route.js';
import { ok } from '../../envelope.js';
import type { enrollSchema } from '../../schemas.js';
import { admitEnrolment } from './enrolment-gate.js';
import * as routes from './merchants.routes.js';
import { allowance, fairShare, holdersWith } from '../../../store/storage-quota.js';

/** What a merchant may see of itself: never its keys or signing salt. */
function merchantProfile(merchant: Merchant): Record<string, unknown> {
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

export const enroll: RouteHandler<typeof routes.enroll, AppEnv> = async (c) => {
  await admitEnrolment(c);
  const input = await bodyOf(c, routes.enroll);
  const { merchant, apiKey } = await c.get('services').merchants.enroll(enrollInputOf(input));
  return ok(c, `Merchant ${merchant.name} enrolled: send api_key as the Service-Api-Key header and payee_id as payee. Keep signing_salt secret; it is shown only now.`, {
    api_key: apiKey,
    signing_salt: merchant.signingSalt,
    ...merchantProfile(merchant),
  });
};

/** For tools and the dashboard. */
export const ownMerchant: RouteHandler<typeof routes.ownMerchant, AppEnv> = async (c) => {
  const { merchants, store, config } = c.get('services');
  const merchant = await merchants.current(c.get('merchant'));
  // Its own bytes and share only: the sandbox's total is other merchants' business.
  const usage = await store.storageUsage(merchant.payeeId);
  const { merchantBytes } = usage;
  const storage = {
    used_bytes: merchantBytes,
    quota_bytes: config.storage.merchantBytes,
    fair_share_bytes: fairShare(config.storage, holdersWith(usage)),
    allowance_bytes: allowance(usage, config.storage),
  };
  return ok(c, `This key belongs to merchant ${merchant.name}, payee ${merchant.payeeId}; its stored records take ${shownBytes(merchantBytes)} of its ${shownBytes(config.storage.merchantBytes)} quota; its fair share of the sandbox's budget is ${shownBytes(storage.fair_share_bytes)}.`, {
    ...merchantProfile(merchant),
    storage,
  });
};

/** Authenticates itself: it is bound beside enrolment, not behind the keyed middleware (see merchants.index.ts). */
export const deleteOwnMerchant: RouteHandler<typeof routes.deleteOwnMerchant, AppEnv> = async (c) => {
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
};

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
