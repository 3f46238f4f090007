/** Real time for the whole instance; each merchant's sandbox time runs at an offset from it. */
import type { Merchant } from '../domain/merchant.js';

export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

export class SandboxClock {
  constructor(private readonly realNow: Clock = systemClock) {}

  /** The merchant's sandbox time, ms since the epoch. */
  now(merchant: Merchant): number {
    return this.realNow() + merchant.clockOffsetMs;
  }

  real(): number {
    return this.realNow();
  }
}
