/** Generated people and accounts: deterministic per seed, so a replay sees the same names. */
import { faker } from '@faker-js/faker/locale/en';
import type { Payer, PaymentSource } from '../domain/payment.js';
import { seedOf } from '../domain/seeded.js';
import { maskAccount } from '../domain/transitions.js';

/** The same payer id always gets the same name. */
export function payerFor(id: string): Payer {
  faker.seed(seedOf(`payer:${id}`));
  return { id, name: faker.person.fullName() };
}

let generated = 0;

/** A new payer for a pickup or a payment with none assigned. */
export function generatedPayer(seed: number): Payer {
  faker.seed(seedOf(`generated:${seed}:${generated++}`));
  return { id: `payer_${faker.string.alphanumeric({ length: 12, casing: 'lower' })}`, name: faker.person.fullName() };
}

export function walletSourceFor(payer: Payer): PaymentSource {
  faker.seed(seedOf(`wallet:${payer.id}`));
  const account = faker.string.numeric(12);
  return { type: 'WALLET', provider: 'SANDBOX_WALLET', account: maskAccount(account) };
}

export interface DemoMerchantProfile {
  readonly name: string;
  readonly city: string;
}

export function demoMerchantProfile(seed: number, index: number): DemoMerchantProfile {
  faker.seed(seed * 1000 + index);
  return { name: faker.company.name(), city: faker.location.city() };
}

export function merchantProfile(): DemoMerchantProfile {
  faker.seed(Math.floor(Math.random() * 2 ** 31));
  return { name: faker.company.name(), city: faker.location.city() };
}
