/**
 * One budget per instance for the work a request can make cost more than a plain request
 * (signature hints, did-you-mean suggestions for unknown fields), shared fairly across merchants
 * (SPEC 26): the instance spends at most COSTLY_MS_PER_SECOND of such work a second, and while
 * several merchants draw on it each may take at most an equal share. So ten merchants together
 * take no more than one merchant alone may, and each still gets its share.
 *
 * Spent time is measured, not guessed (a hint on a 64 KiB body costs ten times one on a short
 * body), and drains continuously: the instance's at the budget's rate, a merchant's at its fair
 * share of it. Work that is refused is not done; the caller answers without it, saying so.
 */
import type { Clock } from './clock.js';

/** Milliseconds of costly work the instance does a second, whoever asks: a tenth of one core. */
export const COSTLY_MS_PER_SECOND = 100;

/** Spent time, draining: `ms` as of `at`. */
interface Spent {
  ms: number;
  at: number;
}

export class CostlyWorkBudget {
  private readonly instance: Spent = { ms: 0, at: 0 };
  private readonly merchants = new Map<string, Spent>();

  constructor(
    private readonly now: Clock,
    readonly msPerSecond = COSTLY_MS_PER_SECOND,
  ) {}

  /**
   * 0 when `payeeId` may start costly work now; else the milliseconds (at least 1) until it may,
   * were nobody else to draw meanwhile.
   */
  waitFor(payeeId: string): number {
    const now = this.now();
    const share = this.shareFor(payeeId, now);
    const mine = this.merchants.get(payeeId)?.ms ?? 0;
    const instanceWait = ((this.instance.ms - this.msPerSecond) / this.msPerSecond) * 1000;
    const shareWait = ((mine - share) / share) * 1000;
    const wait = Math.max(instanceWait, shareWait);
    return wait <= 0 ? 0 : Math.max(1, Math.ceil(wait));
  }

  /** Charges `ms` of work done for `payeeId`. */
  spend(payeeId: string, ms: number): void {
    const now = this.now();
    this.shareFor(payeeId, now);
    let mine = this.merchants.get(payeeId);
    if (!mine) this.merchants.set(payeeId, (mine = { ms: 0, at: now }));
    mine.ms += ms;
    this.instance.ms += ms;
  }

  /** Runs `work` for `payeeId` when its share allows, charging the time it took; undefined (nothing run) when it does not. */
  run<T>(payeeId: string, work: () => T): T | undefined {
    if (this.waitFor(payeeId) > 0) return undefined;
    const started = performance.now();
    try {
      return work();
    } finally {
      this.spend(payeeId, performance.now() - started);
    }
  }

  /** The merchants drawing now: those with time not yet drained. */
  get drawing(): number {
    return this.merchants.size;
  }

  /**
   * Drains every spent time up to `now` and answers `payeeId`'s fair share: the budget divided
   * among the merchants still holding spent time, `payeeId` counted.
   */
  private shareFor(payeeId: string, now: number): number {
    drain(this.instance, now, this.msPerSecond);
    const drawing = this.merchants.size + (this.merchants.has(payeeId) ? 0 : 1);
    const share = this.msPerSecond / drawing;
    for (const [id, spent] of this.merchants) {
      drain(spent, now, share);
      if (spent.ms <= 0) this.merchants.delete(id);
    }
    return share;
  }
}

function drain(spent: Spent, now: number, msPerSecond: number): void {
  spent.ms = Math.max(0, spent.ms - (Math.max(0, now - spent.at) / 1000) * msPerSecond);
  spent.at = now;
}
