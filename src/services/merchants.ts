/** Enrolment, keys, demo merchants, the per-merchant clock, and a merchant's deletion (by itself, or when idle). */
import { SandboxError } from '../domain/errors.js';
import { findCurrency } from '../domain/currencies.js';
import { apiKeyHash, newApiKey, newPayeeId, newSigningSalt } from '../domain/ids.js';
import { DEFAULT_SETTINGS } from '../domain/merchant.js';
import type { Merchant, MerchantSettings } from '../domain/merchant.js';
import { DAY_MS } from '../domain/transitions.js';
import type { KeyedPayment, MerchantChange, MerchantErasure, Store } from '../store/store.js';
import { sharesTooSmall } from '../store/storage-quota.js';
import type { SandboxClock } from './clock.js';
import type { SandboxConfig } from './config.js';
import { canonicalJson } from '../domain/canonical-json.js';
import type { PeopleGenerator } from './people.js';
import { sharesTooSmallError } from './storage-refusals.js';

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

/** What deleting a merchant erased, counted. */
export interface MerchantDeletion extends MerchantErasure {
  readonly faultRules: number;
  readonly apiKeys: number;
}

/** A key's use is written to its merchant at most this often: not a write per request. */
export const USE_WRITTEN_EVERY_MS = 3_600_000;

/**
 * Demo merchants never expire when idle: their keys are printed at start and written in the
 * README, so deleting them would turn published keys into 401s, and free nothing that lasts
 * (a start enrolls them again). Deleting them with their own key is allowed.
 */
const IDLE_EXEMPT: ReadonlySet<string> = new Set(DEMO_MERCHANTS.map((d) => d.payeeId));

export class MerchantService {
  /** Per merchant, the real ms its key was last used on this instance (only while idle merchants expire). */
  private readonly lastUsed = new Map<string, number>();
  /** Per merchant, when this instance last wrote that use to the store. */
  private readonly useWritten = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly clock: SandboxClock,
    private readonly config: SandboxConfig,
    private readonly people: PeopleGenerator,
  ) {}

  async authenticate(apiKey: string | undefined): Promise<Merchant> {
    return this.known(await this.store.merchantByKey(presentKey(apiKey)));
  }

  /** authenticate, reading the merchant's payment `paymentId` with the key (a status read: one round trip on PostgreSQL). */
  async authenticateRead(apiKey: string | undefined, paymentId: string): Promise<KeyedPayment> {
    const read = await this.store.keyedPayment(presentKey(apiKey), paymentId);
    this.known(read?.merchant);
    return read!;
  }

  private known(merchant: Merchant | undefined): Merchant {
    if (!merchant) throw SandboxError.unauthenticated('The Service-Api-Key is not recognised: check the key you got at enrolment (keys are case-sensitive).');
    if (this.config.merchantIdleDays > 0) this.noteUse(merchant);
    return merchant;
  }

  /**
   * Remembers the use in memory, and writes it to the merchant at most once an hour (from this
   * instance), without making the request wait: a lost write only makes the merchant look idle
   * up to an hour longer ago, which the sweep allows for.
   */
  private noteUse(merchant: Merchant): void {
    const now = this.clock.real();
    const id = merchant.payeeId;
    this.lastUsed.set(id, now);
    const written = Math.max(merchant.lastUsedAt ?? -Infinity, this.useWritten.get(id) ?? -Infinity);
    if (now - written < USE_WRITTEN_EVERY_MS) return;
    this.useWritten.set(id, now);
    this.store
      .updateMerchant(id, (current) => [(current.lastUsedAt ?? -Infinity) >= now ? null : { ...current, lastUsedAt: now }, null] as const)
      .catch(() => this.useWritten.delete(id));
  }

  /**
   * Deletes the merchant and everything it holds (see Store.deleteMerchant); its key answers 401
   * from now on, like an unknown one. Answers what went.
   */
  async deleteMerchant(merchant: Merchant): Promise<MerchantDeletion> {
    const current = await this.current(merchant);
    const erased = await this.store.deleteMerchant(merchant.payeeId);
    if (!erased) throw SandboxError.unauthenticated('The Service-Api-Key is not recognised: its merchant no longer exists.');
    this.lastUsed.delete(merchant.payeeId);
    this.useWritten.delete(merchant.payeeId);
    return { ...erased, faultRules: current.faultRules?.length ?? 0, apiKeys: current.apiKeyHashes.length };
  }

  /**
   * Deletes every merchant (but the demo ones) whose key has not been used for
   * `merchantIdleDays` of real time, plus the hour a use may wait to be written; answers their
   * payee ids. Merchants that predate the record of use count from their newest journal entry
   * or, without one, from their enrolment.
   */
  async deleteIdle(): Promise<readonly string[]> {
    const days = this.config.merchantIdleDays;
    if (days <= 0) return [];
    const idleBefore = this.clock.real() - days * DAY_MS - USE_WRITTEN_EVERY_MS;
    const gone: string[] = [];
    const ids = await this.store.merchantIds();
    // Uses noted here of merchants another instance deleted.
    const known = new Set(ids);
    for (const id of this.lastUsed.keys()) if (!known.has(id)) this.lastUsed.delete(id);
    for (const id of this.useWritten.keys()) if (!known.has(id)) this.useWritten.delete(id);
    for (const id of ids) {
      if (IDLE_EXEMPT.has(id)) continue;
      const merchant = await this.store.merchant(id);
      if (!merchant || (this.lastUsed.get(id) ?? -Infinity) > idleBefore) continue;
      if ((merchant.lastUsedAt ?? (await this.lastSeen(merchant))) > idleBefore) continue;
      try {
        await this.deleteMerchant(merchant);
        gone.push(id);
      } catch (err) {
        // Deleted meanwhile (by itself, or by another instance's sweep).
        if (!(err instanceof SandboxError)) throw err;
      }
    }
    return gone;
  }

  /** A merchant without a recorded use: its newest journal entry, else its enrolment. */
  private async lastSeen(merchant: Merchant): Promise<number> {
    const [newest] = await this.store.journal.list(merchant.payeeId, { limit: 1 });
    return Math.max(merchant.createdAt, newest?.at ?? -Infinity);
  }

  async enroll(input: EnrollInput): Promise<{ merchant: Merchant; apiKey: string }> {
    if ((await this.store.merchantIds()).length >= this.config.maxMerchants) {
      throw SandboxError.refused(`This sandbox holds ${this.config.maxMerchants} merchants, its cap: reuse an enrolled merchant (POST /sandbox/v1/reset erases its payments), or delete one you no longer need (DELETE /sandbox/v1/merchant with its key).`);
    }
    const payeeId = newPayeeId();
    // A new merchant holds nothing, so it is under its share: refused only when one more would make every share too small.
    if (sharesTooSmall((await this.store.storageUsage(payeeId)).holders, this.config.storage)) throw sharesTooSmallError(this.config.storage);
    const homeCurrency = input.homeCurrency ?? 'SGD';
    if (!findCurrency(homeCurrency)) throw SandboxError.invalid(`home_currency ${JSON.stringify(homeCurrency)} is not a supported currency.`);
    refuseRateAboveCeiling(input.rateLimitPerSecond, this.config.defaultRateLimit);
    // Drawn from what the enrolment asked for, never from the random payee id: one seed, one sandbox.
    const profile = this.people.merchantProfile(canonicalJson(JSON.parse(JSON.stringify(input)) as unknown));
    const apiKey = newApiKey();
    const merchant: Merchant = {
      payeeId,
      name: input.name ?? profile.name,
      city: input.city ?? profile.city,
      countryCode: countryOf(homeCurrency),
      mcc: '5812',
      homeCurrency,
      apiKeyHashes: [apiKeyHash(apiKey)],
      signingSalt: newSigningSalt(),
      settings: settingsFrom(input, this.config.defaultRateLimit),
      clockOffsetMs: 0,
      createdAt: this.clock.real(),
    };
    await this.store.saveMerchant(merchant);
    return { merchant, apiKey };
  }

  /** Enrolls the demo merchants when the store has none of them (first start on an empty store); answers them with their published keys. */
  async ensureDemoMerchants(): Promise<readonly { merchant: Merchant; apiKey: string }[]> {
    const out: { merchant: Merchant; apiKey: string }[] = [];
    for (const [index, demo] of DEMO_MERCHANTS.entries()) {
      let merchant = await this.store.merchant(demo.payeeId);
      if (!merchant) {
        const profile = this.people.demoMerchantProfile(index);
        merchant = {
          payeeId: demo.payeeId,
          name: profile.name,
          city: profile.city,
          countryCode: 'SG',
          mcc: '5812',
          homeCurrency: 'SGD',
          apiKeyHashes: [apiKeyHash(demo.apiKey)],
          signingSalt: demo.salt,
          settings: { ...DEFAULT_SETTINGS, requireSignature: demo.requireSignature, rateLimitPerSecond: 0 },
          clockOffsetMs: 0,
          createdAt: this.clock.real(),
        };
        await this.store.saveMerchant(merchant);
      }
      out.push({ merchant, apiKey: demo.apiKey });
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
    if (!done) throw SandboxError.unauthenticated('The Service-Api-Key is not recognised: its merchant no longer exists.');
    return done.result;
  }

  /** The merchant stored under this payee id now, or undefined once deleted. */
  byId(payeeId: string): Promise<Merchant | undefined> {
    return this.store.merchant(payeeId);
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

/** Where the operator set SANDBOX_RATE_LIMIT, it is every key's ceiling: a merchant may ask for less, never for more or for none. */
function refuseRateAboveCeiling(asked: number | undefined, ceiling: number): void {
  if (ceiling <= 0 || asked === undefined || (asked > 0 && asked <= ceiling)) return;
  throw SandboxError.invalid(
    `rate_limit_per_second must be from 1 to ${ceiling} on this sandbox, got ${asked}: its operator caps every key at ${ceiling} requests per second (SANDBOX_RATE_LIMIT). Leave it out to get ${ceiling}.`,
  );
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

function presentKey(apiKey: string | undefined): string {
  if (!apiKey) throw SandboxError.unauthenticated('Missing Service-Api-Key header: send the API key you got at enrolment, e.g. Service-Api-Key: sk_sandbox_...');
  return apiKey;
}
