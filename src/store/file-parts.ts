// A change someone is answered about is written first (`write`); a record of what already happened is kept whatever the disk says (`record`).
import { MemoryDeliveryLog, type AttemptOutcome, type Delivery, type DeliveryAttempt } from './delivery-log.js';
import { deliveryRecords } from './file-records.js';
import type { FileStore } from './file-store.js';
import { MemoryIdempotencyKeys } from './idempotency-keys.js';
import { MemoryJournalLog, withoutAnswer, type NewJournalEntry } from './journal-log.js';
import { MemoryReadinessLog } from './readiness-log.js';
import type { SeenRequest } from '../domain/readiness.js';

type LogLines = Pick<FileStore, 'write' | 'record'>;

export class FileJournalLog extends MemoryJournalLog {
  constructor(private readonly log: LogLines) {
    super();
  }

  /** Without an answer text already written, so a polling loop does not write the same text each time. */
  override async append(payeeId: string, entry: NewJournalEntry): Promise<void> {
    const kept = this.keep(payeeId, entry);
    const { answerRef, responseBody } = kept.entry;
    // A lost line takes the text with it: the next entry that refers to it carries it again.
    const lost = kept.carriesAnswer && answerRef !== undefined && responseBody !== null ? () => this.unwritten(payeeId, answerRef, responseBody) : undefined;
    this.log.record({ t: 'journal', payeeId, v: kept.carriesAnswer ? kept.entry : withoutAnswer(kept.entry) }, { lost });
  }

  override async clear(payeeId: string): Promise<number> {
    this.log.write({ t: 'journal-clear', payeeId });
    return super.clear(payeeId);
  }
}

export class FileDeliveryLog extends MemoryDeliveryLog {
  constructor(private readonly log: LogLines) {
    super();
  }

  override async record(deliveries: readonly Delivery[]): Promise<void> {
    this.log.write(...deliveryRecords(deliveries));
    this.add(deliveries);
  }

  /** Not waited for: an attempt lost to a restart is only made again. */
  override async recordAttempt(id: string, attempt: DeliveryAttempt, next: AttemptOutcome): Promise<void> {
    const updated = this.attempted(id, attempt, next);
    if (updated) this.log.record({ t: 'delivery', v: updated });
  }

  override async resend(payeeId: string, id: string, now: number): Promise<Delivery | 'pending' | undefined> {
    const again = this.resendable(payeeId, id, now);
    if (typeof again !== 'object') return again;
    this.log.write({ t: 'delivery', v: again });
    this.put(again);
    return again;
  }

  override async advanceHeld(payeeId: string, ms: number, writtenBy: number, now: number): Promise<readonly number[]> {
    const moved = this.advancedHeld(payeeId, ms, writtenBy, now);
    if (moved.length === 0) return [];
    this.log.write(...deliveryRecords(moved));
    this.putPending(moved);
    return moved.map((d) => d.nextAttemptAt!);
  }
}

/** A claim is never written: after a restart nobody runs it, so its retry must run. */
export class FileIdempotencyKeys extends MemoryIdempotencyKeys {
  constructor(private readonly log: LogLines) {
    super();
  }

  override async finish(payeeId: string, key: string, code: number, body: string): Promise<void> {
    const answered = this.answer(payeeId, key, code, body);
    if (answered) this.log.record({ t: 'key', payeeId, v: answered }, { now: true });
  }
}

export class FileReadinessLog extends MemoryReadinessLog {
  constructor(private readonly log: LogLines) {
    super();
  }

  /** A polling loop's replacing reads are not written: the next snapshot holds the newest. */
  override async add(payeeId: string, seen: SeenRequest, repeat: string | null): Promise<void> {
    const { id, replaced } = this.keep(payeeId, seen, repeat);
    if (replaced === null) this.log.record({ t: 'seen', payeeId, id, v: seen });
  }
}
