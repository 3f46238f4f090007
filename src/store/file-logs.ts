/**
 * The request journal and the webhook deliveries of the file store: held in memory like the
 * memory store's (which answers every read), and each change also a record of the log.
 *
 * A journal entry rides the write of its turn and nobody waits for it: it records a request
 * already answered, like the shared store's journal (written without waiting for the disk). An
 * attempt rides too (lost to a crash, the attempt is only made again). New deliveries, a resend
 * and a clear are changes someone is answered about: written before that answer.
 */
import type { AttemptOutcome, Delivery, DeliveryAttempt, DeliveryLog, MemoryDeliveryLog } from './delivery-log.js';
import type { JournalEntry, JournalFilter, JournalLog, MemoryJournalLog, NewJournalEntry } from './journal-log.js';
import type { LogWriter } from './log-writer.js';
import { encodeRecord } from './store-records.js';

export class FileJournalLog implements JournalLog {
  constructor(
    readonly memory: MemoryJournalLog,
    private readonly log: LogWriter,
  ) {}

  async append(payeeId: string, entry: NewJournalEntry): Promise<void> {
    const kept = this.memory.keep(payeeId, entry);
    void this.log.ride(encodeRecord({ t: 'journal', payeeId, v: kept }));
  }

  list(payeeId: string, filter: JournalFilter): Promise<JournalEntry[]> {
    return this.memory.list(payeeId, filter);
  }

  async clear(payeeId: string): Promise<number> {
    this.log.now(encodeRecord({ t: 'journal-clear', payeeId }));
    return this.memory.clear(payeeId);
  }
}

export class FileDeliveryLog implements DeliveryLog {
  constructor(
    readonly memory: MemoryDeliveryLog,
    private readonly log: LogWriter,
  ) {}

  /** Deliveries no payment change causes (a test event): written, then sendable. */
  async record(deliveries: readonly Delivery[]): Promise<void> {
    const lines = deliveries.map((v) => encodeRecord({ t: 'delivery', v })).join('');
    await this.log.change(lines, deliveries.length, () => undefined, () => this.memory.add(deliveries));
  }

  list(payeeId: string, limit: number): Promise<readonly Delivery[]> {
    return this.memory.list(payeeId, limit);
  }

  get(payeeId: string, id: string): Promise<Delivery | undefined> {
    return this.memory.get(payeeId, id);
  }

  claimDue(now: number, leaseMs: number, max: number): Promise<readonly Delivery[]> {
    return this.memory.claimDue(now, leaseMs, max);
  }

  async recordAttempt(id: string, attempt: DeliveryAttempt, next: AttemptOutcome): Promise<void> {
    const updated = this.memory.attempted(id, attempt, next);
    if (updated) await this.log.ride(encodeRecord({ t: 'delivery', v: updated }));
  }

  async resend(payeeId: string, id: string, now: number): Promise<Delivery | 'pending' | undefined> {
    const again = this.memory.resendable(payeeId, id, now);
    if (typeof again !== 'object') return again;
    const previous = this.memory.find(payeeId, id)!;
    const written = this.log.change(encodeRecord({ t: 'delivery', v: again }), 1, () => this.memory.put(previous));
    this.memory.put(again);
    await written;
    return again;
  }

  async clear(payeeId: string): Promise<void> {
    this.log.now(encodeRecord({ t: 'deliveries-clear', payeeId }));
    await this.memory.clear(payeeId);
  }
}
