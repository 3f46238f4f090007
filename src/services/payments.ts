/** The payment use cases: each reads, asks the domain to decide, and stores with compare-and-set. */
import { SandboxError } from '../domain/errors.js';
import { convertMinorUnits, findCurrency } from '../domain/currencies.js';
import { newPaymentCode, newPaymentId, newPaymentToken } from '../domain/ids.js';
import { faultAfterCommit, magicPayerOutcome, MAGIC_AMOUNTS, PAY_LATER_DELAY_MS } from '../domain/magic.js';
import type { Merchant } from '../domain/merchant.js';
import { MAX_AMOUNT_MINOR } from '../domain/money.js';
import { newPayment } from '../domain/payment.js';
import type { Actor, Payer, Payment, PaymentEvent, PaymentStatus } from '../domain/payment.js';
import { fieldsToSign, maskedFields, signFields, SIGN_TYPES } from '../domain/signature.js';
import { dueWork, feesFor, transition } from '../domain/transitions.js';
import type { PaymentAction } from '../domain/transitions.js';
import type { Delivery } from '../store/delivery-log.js';
import type { PaymentPage, PaymentQuery, Store } from '../store/store.js';
import type { SandboxConfig } from './config.js';
import type { MerchantService } from './merchants.js';
import type { SandboxMetrics } from './metrics.js';
import type { PeopleGenerator } from './people.js';
import { createRefusedError } from './storage-refusals.js';
import { recordBytes } from '../store/storage-quota.js';
import { SignatureHints } from './signature-hints.js';
import { CostlyWorkBudget } from './costly-work.js';

export interface CreatePaymentInput {
  /** The request body as sent, for the signature. */
  readonly body: Readonly<Record<string, unknown>>;
  readonly payee: string;
  readonly productType: string;
  readonly merchantRefNo: string;
  readonly amountMinor: number;
  readonly currency: string | undefined;
  readonly payer: string | undefined;
  readonly metadata: Readonly<Record<string, unknown>> | undefined;
  readonly signType: string | undefined;
  readonly sign: string | undefined;
}

/** A fault the HTTP layer applies after the change is committed. */
export type CommittedFault = 'timeout' | 'drop' | null;

export interface PayOptions {
  readonly payer?: string | undefined;
  readonly paidCurrency?: string | undefined;
}

/** Told of every committed change: the payment as stored, the events the change added, and the deliveries stored with it. */
export type PaymentChangeListener = (merchant: Merchant, payment: Payment, events: readonly PaymentEvent[], outbox: readonly Delivery[]) => void;

/** The webhook deliveries a change causes, stored with it (the outbox). */
export type OutboxWriter = (merchant: Merchant, payment: Payment, events: readonly PaymentEvent[]) => readonly Delivery[];

const NO_OUTBOX: OutboxWriter = () => [];

export class PaymentService {
  private readonly listeners: PaymentChangeListener[] = [];
  private readonly hints: SignatureHints;

  constructor(
    private readonly store: Store,
    private readonly merchants: MerchantService,
    private readonly config: SandboxConfig,
    private readonly people: PeopleGenerator,
    private readonly outbox: OutboxWriter = NO_OUTBOX,
    private readonly metrics?: SandboxMetrics,
    costlyWork = new CostlyWorkBudget(() => performance.now()),
  ) {
    this.hints = new SignatureHints(() => merchants.realNow(), costlyWork);
  }

  async create(merchant: Merchant, input: CreatePaymentInput): Promise<{ payment: Payment; fault: CommittedFault }> {
    this.verifySignature(merchant, input);
    if (input.payee !== merchant.payeeId) {
      throw SandboxError.invalid(`payee ${JSON.stringify(input.payee)} is not the merchant of this Service-Api-Key: use your payee id ${merchant.payeeId}.`, [
        { field: 'payee', message: `must be ${merchant.payeeId}, the payee id of this API key` },
      ]);
    }
    const magic = MAGIC_AMOUNTS[input.amountMinor];
    if (magic?.fault === 'error=500') throw new SandboxError('injected_internal_error', 'Injected fault: amount 900.01 makes create answer 500 and store nothing (a sandbox magic value).');
    // With Retry-After, as an injected error=503 answers: a client rehearsing a 503 can honour it.
    if (magic?.fault === 'error=503') throw new SandboxError('injected_unavailable', 'Injected fault: amount 900.02 makes create answer 503 and store nothing (a sandbox magic value); retry after 1 s (see Retry-After).', {}, 1);

    // A duplicate merchant_ref_no is found by the insert itself (the store's unique index), not by a read before it.
    if (!(await this.store.belowPaymentCap(merchant.payeeId, this.config.maxPaymentsPerMerchant))) {
      throw SandboxError.refused(`This merchant holds ${this.config.maxPaymentsPerMerchant} payments, the sandbox cap: erase them with POST /sandbox/v1/reset.`);
    }

    const now = this.merchants.now(merchant);
    const currency = input.currency ?? merchant.homeCurrency;
    let payment = newPayment({
      id: newPaymentId(),
      token: newPaymentToken(),
      code: newPaymentCode(),
      payeeId: merchant.payeeId,
      merchantRefNo: input.merchantRefNo,
      productType: input.productType,
      currency,
      amountMinor: input.amountMinor,
      metadata: input.metadata === undefined ? undefined : JSON.stringify(input.metadata),
      now,
      ttlMs: merchant.settings.qrTtlSeconds * 1000,
    });
    if (input.payer !== undefined) {
      payment = { ...payment, status: 'W', history: [{ type: 'created', from: null, to: 'W', at: now, reason: null, actor: 'merchant' }] };
      payment = this.followMagicPayer({ ...payment, payer: this.people.payerFor(input.payer) }, merchant, now);
    }

    let outbox: readonly Delivery[];
    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      outbox = this.outbox(merchant, payment, payment.history);
      const result = await this.store.insertPayment(payment, outbox, this.config.storage);
      this.metrics?.storeWrites.observe({ store: this.store.kind, operation: 'insert' }, (performance.now() - started) / 1000);
      if (result === 'inserted') break;
      if (result === 'merchant_quota' || result === 'fair_share') {
        const usage = await this.store.storageUsage(merchant.payeeId);
        throw createRefusedError(result, usage, recordBytes(payment), this.config.storage);
      }
      if (result === 'duplicate_ref') {
        const existing = await this.store.paymentByRef(merchant.payeeId, input.merchantRefNo);
        throw SandboxError.refused(
          `Duplicate merchant_ref_no ${JSON.stringify(input.merchantRefNo)}: payment ${existing?.id} already uses it; query that payment or send a new merchant_ref_no.`,
          { payment_id: existing?.id },
        );
      }
      if (attempt > 5) throw new Error('could not draw a unique payment code');
      payment = { ...payment, id: newPaymentId(), token: newPaymentToken(), code: newPaymentCode() };
    }
    this.committed(merchant, payment, payment.history, outbox);
    const fault: CommittedFault = faultAfterCommit(input.amountMinor);
    return { payment, fault };
  }

  /**
   * The payment with whatever fell due on the merchant's clock applied first; `read` is the
   * payment as already read with the key (keyedPayment), used for the first attempt.
   */
  async get(merchant: Merchant, paymentId: string, read?: { readonly payment: Payment | undefined }): Promise<Payment> {
    for (let first = true; ; first = false) {
      const stored = first && read ? found(read.payment, paymentId) : await this.find(merchant, paymentId);
      const current = this.catchUp(stored, merchant);
      if (current === stored || (await this.commit(merchant, current, stored.version))) return current;
    }
  }

  async byToken(token: string): Promise<{ payment: Payment; merchant: Merchant } | undefined> {
    const stored = await this.store.paymentByToken(token);
    if (!stored) return undefined;
    const merchant = await this.store.merchant(stored.payeeId);
    if (!merchant) return undefined;
    return { payment: await this.get(merchant, stored.id), merchant };
  }

  assign(merchant: Merchant, paymentId: string, payer: string, actor: Actor = 'merchant'): Promise<Payment> {
    return this.change(merchant, paymentId, actor, (p, now) => ({
      type: 'assign',
      payer: this.people.payerFor(payer),
      payDueAt: magicPayerOutcome(payer) === 'pay_later' ? now + PAY_LATER_DELAY_MS : null,
    }));
  }

  pickup(merchant: Merchant, paymentId: string, payer: string | undefined): Promise<Payment> {
    if (payer !== undefined) return this.assign(merchant, paymentId, payer, 'sandbox');
    return this.change(merchant, paymentId, 'sandbox', (p) => ({ type: 'assign', payer: this.people.generatedPayer(merchant, p), payDueAt: null }));
  }

  cancel(merchant: Merchant, paymentId: string, reason: string): Promise<Payment> {
    return this.change(merchant, paymentId, 'merchant', () => ({ type: 'cancel', reason }));
  }

  void(merchant: Merchant, paymentId: string, reason: string): Promise<Payment> {
    return this.change(merchant, paymentId, 'merchant', () => ({ type: 'void', reason }));
  }

  /** The control API pays as the sandbox; the payer page pays as the payer. */
  pay(merchant: Merchant, paymentId: string, options: PayOptions, actor: Actor = 'sandbox'): Promise<Payment> {
    return this.change(merchant, paymentId, actor, (p) => this.payAction(merchant, p, options));
  }

  fail(merchant: Merchant, paymentId: string, reason: string | undefined, actor: Actor = 'sandbox'): Promise<Payment> {
    return this.change(merchant, paymentId, actor, () => ({ type: 'fail', reason: reason ?? 'declined by the payer (forced by the sandbox)' }));
  }

  expire(merchant: Merchant, paymentId: string): Promise<Payment> {
    return this.change(merchant, paymentId, 'sandbox', () => ({ type: 'expire', reason: 'forced by the sandbox' }));
  }

  settle(merchant: Merchant, paymentId: string): Promise<Payment> {
    return this.change(merchant, paymentId, 'sandbox', () => ({ type: 'settle' }));
  }

  /** Settles every paid, unsettled payment of the merchant; answers how many. */
  async settleAll(merchant: Merchant): Promise<number> {
    let settled = 0;
    for (const p of await this.store.livePayments(merchant.payeeId)) {
      try {
        await this.settle(merchant, p.id);
        settled++;
      } catch (err) {
        // Not paid (or no longer there): nothing to settle.
        if (!(err instanceof SandboxError)) throw err;
      }
    }
    return settled;
  }

  /** Applies every expiry, delayed payer and settlement cut-off due on the merchant's clock. */
  async runDue(merchant: Merchant): Promise<number> {
    const { payeeId, settings } = merchant;
    let changed = 0;
    for (const id of await this.store.dueIds(payeeId, this.merchants.now(merchant), settings.autoSettle)) {
      const stored = await this.store.payment(payeeId, id);
      if (!stored) continue;
      const current = this.catchUp(stored, merchant);
      // Nothing due after all (a stale hint, or another instance was first): nothing to store.
      if (current !== stored && (await this.commit(merchant, current, stored.version))) changed++;
    }
    return changed;
  }

  list(merchant: Merchant, query: PaymentQuery): Promise<PaymentPage> {
    return this.store.listPayments(merchant.payeeId, query);
  }

  /** Whether the merchant has this payment (an unknown id and another merchant's answer alike). */
  async exists(merchant: Merchant, paymentId: string): Promise<boolean> {
    return (await this.store.payment(merchant.payeeId, paymentId)) !== undefined;
  }

  private async find(merchant: Merchant, paymentId: string): Promise<Payment> {
    return found(await this.store.payment(merchant.payeeId, paymentId), paymentId);
  }

  /** Read, decide, compare-and-set; when another change wins, decide again on the new state. */
  private async change(merchant: Merchant, paymentId: string, actor: Actor, action: (p: Payment, now: number) => PaymentAction): Promise<Payment> {
    for (;;) {
      const stored = await this.find(merchant, paymentId);
      const now = this.merchants.now(merchant);
      const current = this.catchUp(stored, merchant);
      let next = transition(current, action(current, now), now, actor);
      if (next.status === 'W' && actor !== 'payer') next = this.followMagicPayer(next, merchant, now);
      if (await this.commit(merchant, next, stored.version)) return next;
    }
  }

  onChange(listener: PaymentChangeListener): void {
    this.listeners.push(listener);
  }

  /** Compare-and-set; on success, tells the listeners what the change added. */
  private async commit(merchant: Merchant, next: Payment, expectedVersion: number): Promise<boolean> {
    // Each transition adds one event and one version, so the new events are the last ones.
    const events = next.history.slice(-(next.version - expectedVersion));
    const started = performance.now();
    const outbox = this.outbox(merchant, next, events);
    const stored = await this.store.updatePayment(next, expectedVersion, outbox);
    this.metrics?.storeWrites.observe({ store: this.store.kind, operation: 'update' }, (performance.now() - started) / 1000);
    if (!stored) return false;
    this.committed(merchant, next, events, outbox);
    return true;
  }

  /** After a stored change: tells the listeners what it added. */
  private committed(merchant: Merchant, payment: Payment, events: readonly PaymentEvent[], outbox: readonly Delivery[]): void {
    for (const listener of this.listeners) listener(merchant, payment, events, outbox);
  }

  /** PAYER_PAYS pays at once and PAYER_DECLINES fails at once, as the magic payer table says. */
  private followMagicPayer(p: Payment, merchant: Merchant, now: number): Payment {
    const outcome = p.payer ? magicPayerOutcome(p.payer.id) : 'none';
    if (outcome === 'pay_now') return transition(p, this.payAction(merchant, p, {}), now, 'payer');
    if (outcome === 'decline') return transition(p, { type: 'fail', reason: 'declined by the payer (PAYER_DECLINES)' }, now, 'payer');
    if (outcome === 'pay_later' && p.payDueAt === null) return { ...p, payDueAt: now + PAY_LATER_DELAY_MS };
    return p;
  }

  private payAction(merchant: Merchant, p: Payment, options: PayOptions): PaymentAction {
    const payer: Payer = options.payer !== undefined ? this.people.payerFor(options.payer) : (p.payer ?? this.people.generatedPayer(merchant, p));
    const paidCurrency = options.paidCurrency ?? p.currency;
    if (!findCurrency(paidCurrency)) throw SandboxError.invalid(`paid_currency_code ${JSON.stringify(paidCurrency)} is not a supported currency; the currency table in docs/public-api.md lists the supported ones.`);
    const paidAmountMinor = convertMinorUnits(p.amountMinor, p.currency, paidCurrency, this.config.rates);
    if (paidAmountMinor === undefined || paidAmountMinor > MAX_AMOUNT_MINOR) {
      throw SandboxError.invalid(`No conversion from ${p.currency} to ${paidCurrency} fits the amount limits of the sandbox.`);
    }
    return { type: 'pay', payer, paidCurrency, paidAmountMinor, source: this.people.walletSourceFor(payer), fees: feesFor(p.currency, p.amountMinor) };
  }

  /** Applies due work, earliest first, in memory; the caller stores the result. */
  private catchUp(p: Payment, merchant: Merchant): Payment {
    const now = this.merchants.now(merchant);
    let current = p;
    for (let work = dueWork(current, now, merchant.settings.autoSettle); work; work = dueWork(current, now, merchant.settings.autoSettle)) {
      const action: PaymentAction =
        work.kind === 'pay' ? this.payAction(merchant, current, {}) : work.kind === 'expire' ? { type: 'expire', reason: 'time-to-live passed' } : { type: 'settle' };
      current = transition(current, action, work.at, work.kind === 'pay' ? 'payer' : 'clock');
    }
    return current;
  }

  private verifySignature(merchant: Merchant, input: CreatePaymentInput): void {
    if (input.sign === undefined && input.signType === undefined) {
      if (merchant.settings.requireSignature) {
        throw SandboxError.unauthenticated('Signature required: this merchant requires sign_type "SHA512" and sign on create (see POST /sandbox/v1/tools/sign).');
      }
      return;
    }
    if (input.signType === undefined) throw SandboxError.unauthenticated('sign is present but sign_type is missing: send sign_type "SHA512" with it.');
    if (!(SIGN_TYPES as readonly string[]).includes(input.signType)) {
      throw SandboxError.unauthenticated(`Unknown sign_type ${JSON.stringify(input.signType)}: the only sign_type is "SHA512".`);
    }
    if (input.sign === undefined) throw SandboxError.unauthenticated('sign_type is present but sign is missing: send sign, the lowercase hex SHA-512 of the string to sign.');
    const fields = fieldsToSign(input.body);
    if (input.sign !== signFields(fields, merchant.signingSalt)) {
      throw SandboxError.unauthenticated(
        'Signature mismatch: sign is not the SHA-512 of the string the sandbox signed; compare it with yours (string_to_sign, salt masked).',
        {
          string_to_sign: maskedFields(fields),
          signature_hint: this.hints.hintFor(merchant.payeeId, input.body, merchant.signingSalt, input.sign),
        },
      );
    }
  }
}

function found(p: Payment | undefined, paymentId: string): Payment {
  if (p) return p;
  const shown = paymentId.length > 64 ? `${paymentId.slice(0, 64)}…` : paymentId;
  throw SandboxError.notFound(`No payment with payment_id ${JSON.stringify(shown)} exists for this merchant: use a payment_id returned by create with this Service-Api-Key.`);
}
