/** Enrolment, keys, demo merchants and the per-merchant clock. */
import { ApiError } from '../domain/codes.js';
import { findCurrency } from '../domain/currencies.js';
import { newApiKey, newPayeeId, newSigningSalt } from '../domain/ids.js';
import { DEFAULT_SETTINGS } from '../domain/merchant.js';
import type { Merchant, MerchantSettings } from '../domain/merchant.js';
import type { MerchantChange, Store } from '../store/store.js';
import type { SandboxClock } from './clock.js';
import type { SandboxConfig } from './config.js';
import { demoMerchantProfile, merchantProfile } from './people.js';

export interface EnrollInput {
  readonly name?: string;
  readonly city?: string;
  readonly homeCurrency?: string;
  readonly requireSignature?: boolean;
  readonly rateLimitPerSecond?: number;
  readonly inlineQrImage?: boolean;
  readonly autoSettle?: boolean;
  readonly qrTtlSeconds?: number;
}

/** The well-known demo merchants; their keys are printed at start and written in the README. */
export const DEMO_MERCHANTS = [
  { payeeId: 'DEMO-MERCHANT-1', apiKey: 'sk_sandbox_demo_merchant_key', salt: 'demo-salt-1-not-secret', requireSignature: false },
  { payeeId: 'DEMO-MERCHANT-SIGNED', apiKey: 'sk_sandbox_demo_signed_key', salt: 'demo-signing-salt', requireSignature: true },
] as const;

export type { MerchantChange };

export class MerchantService {
  constructor(
    private readonly store: Store,
    private readonly clock: SandboxClock,
    private readonly config: SandboxConfig,
  ) {}

  async authenticate(apiKey: string | undefined): Promise<Merchant> {
    if (!apiKey) {
      throw ApiError.unauthenticated('Missing Service-Api-Key header: send the API key you got at enrolment, e.g. Service-Api-Key: sk_sandbox_...');
    }
    const merchant = await this.store.merchantByKey(apiKey);
    if (!merchant) throw ApiError.unauthenticated('The Service-Api-Key is not recognised: check the key you got at enrolment (keys are case-sensitive).');
    return merchant;
  }

  async enroll(input: EnrollInput): Promise<{ merchant: Merchant; apiKey: string }> {
    if ((await this.store.merchantIds()).length >= this.config.maxMerchants) {
      throw ApiError.refused(`This sandbox holds ${this.config.maxMerchants} merchants, its cap: reuse an enrolled merchant (POST /sandbox/v1/reset erases its payments).`);
    }
    const homeCurrency = input.homeCurrency ?? 'SGD';
    if (!findCurrency(homeCurrency)) throw ApiError.invalid(`home_currency ${JSON.stringify(homeCurrency)} is not a supported currency.`);
    const profile = merchantProfile();
    const apiKey = newApiKey();
    const merchant: Merchant = {
      payeeId: newPayeeId(),
      name: input.name ?? profile.name,
      city: input.city ?? profile.city,
      countryCode: countryOf(homeCurrency),
      mcc: '5812',
      homeCurrency,
      apiKeys: [apiKey],
      signingSalt: newSigningSalt(),
      settings: settingsFrom(input, this.config.defaultRateLimit),
      clockOffsetMs: 0,
      createdAt: this.clock.real(),
    };
    await this.store.saveMerchant(merchant);
    return { merchant, apiKey };
  }

  /** Enrolls the demo merchants when the store has none of them (first start on an empty store). */
  async ensureDemoMerchants(): Promise<readonly Merchant[]> {
    const out: Merchant[] = [];
    for (const [index, demo] of DEMO_MERCHANTS.entries()) {
      let merchant = await this.store.merchant(demo.payeeId);
      if (!merchant) {
        const profile = demoMerchantProfile(this.config.seed, index);
        merchant = {
          payeeId: demo.payeeId,
          name: profile.name,
          city: profile.city,
          countryCode: 'SG',
          mcc: '5812',
          homeCurrency: 'SGD',
          apiKeys: [demo.apiKey],
          signingSalt: demo.salt,
          settings: { ...DEFAULT_SETTINGS, requireSignature: demo.requireSignature, rateLimitPerSecond: 0 },
          clockOffsetMs: 0,
          createdAt: this.clock.real(),
        };
        await this.store.saveMerchant(merchant);
      }
      out.push(merchant);
    }
    return out;
  }

  now(merchant: Merchant): number {
    return this.clock.now(merchant);
  }

  /** Real time of the sandbox (its injected clock), ms. */
  realNow(): number {
    return this.clock.real();
  }

  /**
   * Reads the stored merchant, applies `change` and stores the result atomically (the store sees
   * to it, across instances too), so a slow request holding an old copy cannot overwrite a newer
   * fault rule, webhook URL or clock offset.
   */
  async update<T>(payeeId: string, change: MerchantChange<T>): Promise<T> {
    const done = await this.store.updateMerchant(payeeId, change);
    if (!done) throw ApiError.unauthenticated('The Service-Api-Key is not recognised: its merchant no longer exists.');
    return done.result;
  }

  /** The merchant as stored now (the copy a request authenticated with may be older). */
  async current(merchant: Merchant): Promise<Merchant> {
    return (await this.store.merchant(merchant.payeeId)) ?? merchant;
  }

  advanceClock(merchant: Merchant, seconds: number): Promise<Merchant> {
    return this.update(merchant.payeeId, (current) => {
      const next = { ...current, clockOffsetMs: current.clockOffsetMs + seconds * 1000 };
      return [next, next] as const;
    });
  }

}

function settingsFrom(input: EnrollInput, defaultRateLimit: number): MerchantSettings {
  return {
    requireSignature: input.requireSignature ?? DEFAULT_SETTINGS.requireSignature,
    qrTtlSeconds: input.qrTtlSeconds ?? DEFAULT_SETTINGS.qrTtlSeconds,
    autoSettle: input.autoSettle ?? DEFAULT_SETTINGS.autoSettle,
    rateLimitPerSecond: input.rateLimitPerSecond ?? defaultRateLimit,
    inlineQrImage: input.inlineQrImage ?? DEFAULT_SETTINGS.inlineQrImage,
  };
}

const COUNTRY_BY_CURRENCY: Readonly<Record<string, string>> = {
  SGD: 'SG', USD: 'US', EUR: 'DE', GBP: 'GB', AUD: 'AU', NZD: 'NZ', CAD: 'CA', CHF: 'CH',
  HKD: 'HK', CNY: 'CN', MYR: 'MY', THB: 'TH', PHP: 'PH', INR: 'IN', IDR: 'ID',
};

function countryOf(currency: string): string {
  return COUNTRY_BY_CURRENCY[currency] ?? 'SG';
}
