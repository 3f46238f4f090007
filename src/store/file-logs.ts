/**
 * The request journal and the webhook deliveries of the file store: held in memory like the
 * memory store's (which answers every read), and each change also a record of the log.
 *
 * A journal entry rides the write of its turn and nobody waits for it: it records a request
 * already answered, like the shared store's journal (written without waiting for the disk). An
 * attempt rides too (lost to a crash, the attempt is only made again). New deliveries, a resend
 * and a clear are changes someone is answered about: written before that answer.
 *
 * The idempotency keys and the readiness evidence are kept the same way, in files of their own
 * (part-file.ts): `<dataFile>.idempotency` and `<dataFile>.readiness`.
 */
import type { AttemptOutcome, Delivery, DeliveryAttempt, DeliveryLog, MemoryDeliveryLog, MerchantPlaces } from './delivery-log.js';
import { withoutAnswer } from './journal-log.js';
import type { JournalEntry, JournalFilter, JournalLog, MemoryJournalLog, NewJournalEntry } from './journal-log.js';
import type { LogWriter } from './log-writer.js';
import type { Logger } from '../logger.js';
import { encodeRecord } from './store-records.js';
import type { SeenRequest } from '../domain/readiness.js';
import { MemoryIdempotencyKeys } from './idempotency-keys.js';
import type { AnsweredKey, IdempotencyBegin, IdempotencyKeys } from './idempotency-keys.js';
import { PartFile } from './part-file.js';
import { MemoryReadinessLog } from './readiness-log.js';
import type { EvidenceRow, ReadinessLog } from './readiness-log.js';

export class FileJournalLog implements JournalLog {
  constructor(
    readonly memory: MemoryJournalLog,
    private readonly log: LogWriter,
  ) {}

  /** An entry that refers to an answer text written with an earlier entry is written without it. */
  async append(payeeId: string, entry: NewJournalEntry): Promise<void> {
    const kept = this.memory.keep(payeeId, entry);
    const written = this.log.ride(encodeRecord({ t: 'journal', payeeId, v: kept.carriesAnswer ? kept.entry : withoutAnswer(kept.entry) }));
    const { answerRef, responseBody } = kept.entry;
    // A lost line takes the text with it: the next entry that refers to it carries it again.
    if (kept.carriesAnswer && answerRef !== undefined && responseBody !== null) written.catch(() => this.memory.unwritten(payeeId, answerRef, responseBody));
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

  claimDue(now: number, leaseMs: number, max: number, places?: MerchantPlaces): Promise<readonly Delivery[]> {
    return this.memory.claimDue(now, leaseMs, max, places);
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

  /** Written before the clock advance is answered; sendable once written (a failed write moves nothing). */
  async advanceHeld(payeeId: string, ms: number, writtenBy: number, now: number): Promise<readonly number[]> {
    const moved = this.memory.advancedHeld(payeeId, ms, writtenBy, now);
    if (moved.length === 0) return [];
    const lines = moved.map((v) => encodeRecord({ t: 'delivery', v })).join('');
    await this.log.change(lines, moved.length, () => undefined, () => this.memory.putPending(moved));
    return moved.map((d) => d.nextAttemptAt!);
  }

  async clear(payeeId: string): Promise<void> {
    this.log.now(encodeRecord({ t: 'deliveries-clear', payeeId }));
    await this.memory.clear(payeeId);
  }
}

type KeyRecord = { readonly t: 'key'; readonly payeeId: string; readonly v: AnsweredKey } | { readonly t: 'clear'; readonly payeeId: string };

/**
 * The idempotency keys of the file store, in `<dataFile>.idempotency`: a key is written with its
 * answer before that answer is sent, so a retry after a restart gets it again. Bounded like the
 * memory's (the file is folded down to what memory holds).
 */
export class FileIdempotencyKeys implements IdempotencyKeys {
  readonly memory = new MemoryIdempotencyKeys();
  readonly part: PartFile<KeyRecord, { readonly payeeId: string; readonly v: AnsweredKey }>;

  constructor(dataFile: string, logger: Logger) {
    this.part = new PartFile(dataFile, {
      name: 'idempotency',
      recordProblem: (r) => (r.t === 'key' ? answeredKeyProblem(r) : r.t === 'clear' ? payeeProblem(r) : `has type t=${JSON.stringify(r.t)}, neither key nor clear`),
      rowProblem: answeredKeyProblem,
      apply: (r) => (r.t === 'key' ? this.memory.restore(r.payeeId, r.v) : void this.memory.clear(r.payeeId)),
      restore: (row) => this.memory.restore(row.payeeId, row.v),
      rows: () => Array.from(this.memory.answered(), ([payeeId, v]) => ({ payeeId, v })),
    }, logger);
  }

  // A claim is never written: after a restart nobody runs it any more, so its retry must run (kept, it would answer "in progress").
  begin(payeeId: string, key: string, fingerprint: string, now: number, realNow: number): Promise<IdempotencyBegin> {
    return this.memory.begin(payeeId, key, fingerprint, now, realNow);
  }

  async finish(payeeId: string, key: string, code: number, body: string): Promise<void> {
    const answered = this.memory.answer(payeeId, key, code, body);
    // Kept in memory even if the write fails: this process still replays it to a retry.
    if (answered) await this.part.log.change(this.part.line({ t: 'key', payeeId, v: answered }), 1, () => undefined);
  }

  forget(payeeId: string, key: string): Promise<void> {
    return this.memory.forget(payeeId, key);
  }

  async clear(payeeId: string): Promise<void> {
    this.part.log.now(this.part.line({ t: 'clear', payeeId }));
    await this.memory.clear(payeeId);
  }
}

type EvidenceRecord = { readonly t: 'seen'; readonly payeeId: string; readonly id: number; readonly v: SeenRequest; readonly replaced: number | null } | { readonly t: 'clear'; readonly payeeId: string };

/**
 * The readiness evidence of the file store, in `<dataFile>.readiness`: an entry rides the write of
 * its turn like a journal entry (it records a request already answered); a clear is written at once.
 */
export class FileReadinessLog implements ReadinessLog {
  readonly memory = new MemoryReadinessLog();
  readonly part: PartFile<EvidenceRecord, EvidenceRow>;

  constructor(dataFile: string, logger: Logger) {
    this.part = new PartFile(dataFile, {
      name: 'readiness',
      recordProblem: (r) =>
        r.t === 'seen' ? evidenceRowProblem(r) ?? (r.replaced === null || Number.isSafeInteger(r.replaced) ? undefined : 'is an entry whose replaced is not an id')
        : r.t === 'clear' ? payeeProblem(r)
        : `has type t=${JSON.stringify(r.t)}, neither seen nor clear`,
      rowProblem: evidenceRowProblem,
      apply: (r) => (r.t === 'seen' ? this.memory.restore(r, r.replaced) : void this.memory.clear(r.payeeId)),
      restore: (row) => this.memory.restore(row),
      rows: () => [...this.memory.rows()],
    }, logger);
  }

  async add(payeeId: string, seen: SeenRequest, repeat: string | null): Promise<void> {
    const { id, replaced } = this.memory.keep(payeeId, seen, repeat);
    // A polling loop's newest read only replaces the last of its run: written with the next fold
    // (rows() holds it), not per read. A kill loses at most that copy; the run's first read stays.
    if (replaced === null) void this.part.log.ride(this.part.line({ t: 'seen', payeeId, id, v: seen, replaced }));
  }

  list(payeeId: string): Promise<readonly SeenRequest[]> {
    return this.memory.list(payeeId);
  }

  async clear(payeeId: string): Promise<void> {
    this.part.log.now(this.part.line({ t: 'clear', payeeId }));
    await this.memory.clear(payeeId);
  }
}

function payeeProblem(r: unknown): string | undefined {
  return typeof r === 'object' && r !== null && typeof (r as { payeeId?: unknown }).payeeId === 'string' ? undefined : 'is without its payeeId';
}

function answeredKeyProblem(r: unknown): string | undefined {
  const v = (r as { v?: Partial<Record<keyof AnsweredKey, unknown>> } | null)?.v;
  const whole = typeof v === 'object' && v !== null && typeof v.key === 'string' && typeof v.fingerprint === 'string' && typeof v.createdAt === 'number' && typeof v.code === 'number' && typeof v.body === 'string';
  return payeeProblem(r) ?? (whole ? undefined : 'is a key without its key, fingerprint, createdAt, code or body');
}

function evidenceRowProblem(r: unknown): string | undefined {
  const { id, v } = (r ?? {}) as { id?: unknown; v?: Partial<Record<keyof SeenRequest, unknown>> | null };
  const whole = Number.isSafeInteger(id) && typeof v === 'object' && v !== null && typeof v.ref === 'string' && typeof v.method === 'string' && typeof v.path === 'string' && typeof v.at === 'number';
  return payeeProblem(r) ?? (whole ? undefined : 'is evidence without its id, ref, method, path or time');
}
