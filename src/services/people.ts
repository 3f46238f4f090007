/**
 * Generated people, accounts and merchant names: each sandbox has its own generator, seeded from
 * the sandbox's seed. Each draw is seeded from the seed and what it is for, as the calls said it:
 * - a merchant's name and city: from what its enrolment asked for;
 * - a generated payer: from its merchant's name and city, the payment's merchant_ref_no and version.
 * So two fresh sandboxes with one seed given the same calls draw the same people. Never from:
 * - a count across the sandbox: the nth name would tell a merchant how many enrolled before it;
 * - a payee id: it is random (unguessable), so two sandboxes would draw differently.
 * Two merchants enrolled alike share a generated name (and payers for one merchant_ref_no): each
 * could work it out from its own calls and the seed, so it tells neither anything of the other.
 */
import { faker as englishFaker } from '@faker-js/faker/locale/en';
import type { Faker, FakerOptions } from '@faker-js/faker';
import type { Payer, Payment, PaymentSource } from '../domain/payment.js';
import { seedOf } from '../domain/seeded.js';
import { maskAccount } from '../domain/transitions.js';

// The class from the prebuilt English instance: the package's main module loads every locale (~100 ms more at start).
const FakerClass = englishFaker.constructor as new (options: FakerOptions) => Faker;

export interface MerchantNames {
  readonly name: string;
  readonly city: string;
}

export class PeopleGenerator {
  private readonly faker: Faker = new FakerClass({ locale: [englishFaker.rawDefinitions] });

  constructor(private readonly seed: number) {}

  /** The same payer id always gets the same name, in every sandbox. */
  payerFor(id: string): Payer {
    this.faker.seed(seedOf(`payer:${id}`));
    return { id, name: this.faker.person.fullName() };
  }

  /** A new payer for a pickup or a payment with none assigned: drawn from the payment as it stands (a second pickup draws another). */
  generatedPayer(merchant: MerchantNames, payment: Pick<Payment, 'merchantRefNo' | 'version'>): Payer {
    this.faker.seed(seedOf(`generated:${this.seed}:${JSON.stringify([merchant.name, merchant.city, payment.merchantRefNo, payment.version])}`));
    return { id: `payer_${this.faker.string.alphanumeric({ length: 12, casing: 'lower' })}`, name: this.faker.person.fullName() };
  }

  walletSourceFor(payer: Payer): PaymentSource {
    this.faker.seed(seedOf(`wallet:${payer.id}`));
    const account = this.faker.string.numeric(12);
    return { type: 'WALLET', provider: 'SANDBOX_WALLET', account: maskAccount(account) };
  }

  demoMerchantProfile(index: number): MerchantNames {
    this.faker.seed(this.seed * 1000 + index);
    return { name: this.faker.company.name(), city: this.faker.location.city() };
  }

  /** Name and city for a merchant enrolled without them: drawn from what its enrolment asked for (its fields as canonical JSON). */
  merchantProfile(enrolment: string): MerchantNames {
    this.faker.seed(seedOf(`merchant:${this.seed}:${enrolment}`));
    return { name: this.faker.company.name(), city: this.faker.location.city() };
  }
}
