/**
 * Generated people, accounts and merchant names: each sandbox has its own generator, seeded from
 * the sandbox's seed, so two sandboxes with one seed draw alike whatever the other does.
 */
import { faker as englishFaker } from '@faker-js/faker/locale/en';
import type { Faker, FakerOptions } from '@faker-js/faker';
import type { Payer, PaymentSource } from '../domain/payment.js';
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
  /** Payers generated so far (pickups and payments without a payer). */
  private generated = 0;
  /** Merchants enrolled without a name or city so far. */
  private enrolled = 0;

  constructor(private readonly seed: number) {}

  /** The same payer id always gets the same name, in every sandbox. */
  payerFor(id: string): Payer {
    this.faker.seed(seedOf(`payer:${id}`));
    return { id, name: this.faker.person.fullName() };
  }

  /** A new payer for a pickup or a payment with none assigned: the nth of this sandbox. */
  generatedPayer(): Payer {
    this.faker.seed(seedOf(`generated:${this.seed}:${this.generated++}`));
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

  /** Name and city for a merchant enrolled without them: the nth of this sandbox. */
  merchantProfile(): MerchantNames {
    this.faker.seed(seedOf(`merchant:${this.seed}:${this.enrolled++}`));
    return { name: this.faker.company.name(), city: this.faker.location.city() };
  }
}
