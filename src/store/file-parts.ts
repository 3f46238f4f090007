/**
 * The journal, the webhook deliveries, the idempotency keys and the readiness evidence of the
 * file store: held in memory like the memory store's (which answers every read), each change a
 * line of the one log (file-records.ts).
 *
 * A change someone is answered about (new deliveries, a resend, a clock advance, a clear) is
 * written first and then made in memory: a write that fails changes nothing. A record of what
 * already happened (a journal entry, evidence, a webhook attempt, an idempotency key's answer)
 * is kept in memory first, where it is true whatever the disk says; its write failing is said
 * once in the log of the process, and the record is lost only to a restart.
 */
import type { AttemptOutcome, Delivery, DeliveryAttempt, DeliveryLog, MerchantPlaces } from './delivery-log.js';
import { MemoryDeliveryLog } from './delivery-log.js';
import { line } from './file-records.js';
import type { LogRecord } from './file-records.js';
import { MemoryIdempotencyKeys } from './idempotency-keys.js';
import type { IdempotencyBegin, IdempotencyKeys } from './idempotency-keys.js';
import { MemoryJournalLog, withoutAnswer } from './journal-log.js';
import type { JournalEntry, JournalFilter, JournalLog, NewJournalEntry } from './journal-log.js';
import { MemoryReadinessLog } from './readiness-log.js';
import type { ReadinessLog } from './readiness-log.js';
import type { SeenRequest } from '../domain/readiness.js';

/** Where the parts write: the store's log. `record` writes what already happened, and never throws. */
export interface LogLines {
  append(text: string): void;
  record(text: string): boolean;
}

export class FileJournalLog implements JournalLog {
  readonly memory = new MemoryJournalLog();
  constructor(private readonly log: LogLines) {}

  /** An entry that refers to an answer text written with an earlier entry is written without it. */
  async append(payeeId: string, entry: NewJournalEntry): Promise<void> {
    const kept = this.memory.keep(payeeId, entry);
    const { answerRef, responseBody } = kept.entry;
    const written = this.log.record(line({ t: 'journal', payeeId, v: kept.carriesAnswer ? kept.entry : withoutAnswer(kept.entry) }));
    // A lost line takes the text with it: the next entry that refers to it carries it again.
    if (!written && kept.carriesAnswer && answerRef !== undefined && responseBody !== null) this.memory.unwritten(payeeId, answerRef, responseBody);
  }

  list(payeeId: string, filter: JournalFilter): Promise<JournalEntry[]> {
    return this.memory.list(payeeId, filter);
  }

  async clear(payeeId: string): Promise<number> {
    this.log.append(line({ t: 'journal-clear', payeeId }));
    return this.memory.clear(payeeId);
  }
}

export class FileDeliveryLog implements DeliveryLog {
  readonly memory = new MemoryDeliveryLog();
  constructor(private readonly log: LogLines) {}

  /** Deliveries no payment change causes (a test event): written, then sendable. */
  async record(deliveries: readonly Delivery[]): Promise<void> {
    this.log.append(deliveryLines(deliveries));
    this.memory.add(deliveries);
  }

  list(payeeId: string, limit: number): Promise<readonly Delivery[]> {
    return this.memory.list(payeeId, limit);
  }

  get(payeeId: string, id: string): Promise<Delivery | undefined> {
    return this.memory.get(payeeId, id);
  }

  claimDue(now: number, leaseMs: number, max: number, places?: MerchantPlaces): Promise<readonly Delivery[]> {
    return this.memory.claimDue(now, leaseMs, max, places);
  }

  async recordAttempt(id: string, attempt: DeliveryAttempt, next: AttemptOutcome): Promise<void> {
    const updated = this.memory.attempted(id, attempt, next);
    // Lost to a restart, an attempt is only made again.
    if (updated) this.log.record(line({ t: 'delivery', v: updated }));
  }

  async resend(payeeId: string, id: string, now: number): Promise<Delivery | 'pending' | undefined> {
    const again = this.memory.resendable(payeeId, id, now);
    if (typeof again !== 'object') return again;
    this.log.append(line({ t: 'delivery', v: again }));
    this.memory.put(again);
    return again;
  }

  async advanceHeld(payeeId: string, ms: number, writtenBy: number, now: number): Promise<readonly number[]> {
    const moved = this.memory.advancedHeld(payeeId, ms, writtenBy, now);
    if (moved.length === 0) return [];
    this.log.append(deliveryLines(moved));
    this.memory.putPending(moved);
    return moved.map((d) => d.nextAttemptAt!);
  }

  async clear(payeeId: string): Promise<void> {
    this.log.append(line({ t: 'deliveries-clear', payeeId }));
    await this.memory.clear(payeeId);
  }
}

export function deliveryLines(deliveries: readonly Delivery[]): string {
  let text = '';
  for (const v of deliveries) text += line({ t: 'delivery', v });
  return text;
}

/** A key is written with its answer before that answer is sent, so a retry after a restart gets it again. */
export class FileIdempotencyKeys implements IdempotencyKeys {
  readonly memory = new MemoryIdempotencyKeys();
  constructor(private readonly log: LogLines) {}

  // A claim is never written: after a restart nobody runs it any more, so its retry must run (kept, it would answer "in progress").
  begin(payeeId: string, key: string, fingerprint: string, now: number, realNow: number): Promise<IdempotencyBegin> {
    return this.memory.begin(payeeId, key, fingerprint, now, realNow);
  }

  async finish(payeeId: string, key: string, code: number, body: string): Promise<void> {
    const answered = this.memory.answer(payeeId, key, code, body);
    // Kept in memory even if the write fails: this process still replays it to a retry.
    if (answered) this.log.record(line({ t: 'key', payeeId, v: answered }));
  }

  forget(payeeId: string, key: string): Promise<void> {
    return this.memory.forget(payeeId, key);
  }

  async clear(payeeId: string): Promise<void> {
    this.log.append(line({ t: 'keys-clear', payeeId }));
    await this.memory.clear(payeeId);
  }
}

export class FileReadinessLog implements ReadinessLog {
  readonly memory = new MemoryReadinessLog();
  constructor(private readonly log: LogLines) {}

  async add(payeeId: string, seen: SeenRequest, repeat: string | null): Promise<void> {
    const { id, replaced } = this.memory.keep(payeeId, seen, repeat);
    // A polling loop's newest read only replaces the last of its run: the next snapshot holds it, and a run's first read is always written.
    if (replaced === null) this.log.record(line({ t: 'seen', payeeId, id, v: seen, replaced }));
  }

  list(payeeId: string): Promise<readonly SeenRequest[]> {
    return this.memory.list(payeeId);
  }

  async clear(payeeId: string): Promise<void> {
    this.log.append(line({ t: 'seen-clear', payeeId }));
    await this.memory.clear(payeeId);
  }
}

/** Replays a record of a part; false when the record is not one of theirs. */
export function applyPart(r: LogRecord, parts: { journal: FileJournalLog; deliveries: FileDeliveryLog; idempotency: FileIdempotencyKeys; readiness: FileReadinessLog }): boolean {
  switch (r.t) {
    case 'journal': return (parts.journal.memory.restore(r.payeeId, r.v), true);
    case 'journal-clear': return (void parts.journal.memory.clear(r.payeeId), true);
    case 'delivery': return (parts.deliveries.memory.put(r.v), true);
    case 'deliveries-clear': return (void parts.deliveries.memory.clear(r.payeeId), true);
    case 'key': return (parts.idempotency.memory.restore(r.payeeId, r.v), true);
    case 'keys-clear': return (void parts.idempotency.memory.clear(r.payeeId), true);
    case 'seen': return (parts.readiness.memory.restore(r, r.replaced), true);
    case 'seen-clear': return (void parts.readiness.memory.clear(r.payeeId), true);
    default: return false;
  }
}
