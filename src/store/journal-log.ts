// Bounded per merchant, so no merchant's traffic grows the store without end.
import { answerTextBytes, ByteTally, journalEntryBytes } from './storage-quota.js';
import type { StorageRoom, TrimmablePart } from './storage-room.js';
import type { LogRecord, LogSlot } from './file-records.js';
export interface JournalEntry {
  /** Per merchant from 1, never shared: another merchant's traffic would show as gaps. */
  readonly id: number;
  readonly at: number;
  readonly method: string;
  readonly path: string;
  /** /v1/... without /openapi: only one sample of the interface shows it. */
  readonly alias: boolean;
  readonly status: number | 'dropped' | 'held';
  readonly code: number | null;
  readonly requestBody: string | null;
  readonly responseBody: string | null;
  readonly latencyMs: number;
  readonly fault: string | null;
  readonly warnings: readonly string[];
  /** Absent on entries kept before it existed. */
  readonly requestId?: string;
  /** The readiness report follows retries by it. */
  readonly idempotencyKey?: string;
  /** `<payment id>@<version>`: a polling loop's identical answer text is kept once. */
  readonly answerRef?: string;
}

export type NewJournalEntry = Omit<JournalEntry, 'id'>;

/** Without responseBody when an earlier entry holds its answer text. */
export type StoredJournalEntry = Omit<JournalEntry, 'responseBody'> & { readonly responseBody?: string | null };

export interface JournalFilter {
  readonly method?: string;
  readonly path?: string;
  readonly status?: JournalEntry['status'];
  readonly limit: number;
}

export const JOURNAL_CAP = 500;

export interface JournalLog {
  append(payeeId: string, entry: NewJournalEntry): Promise<void>;
  list(payeeId: string, filter: JournalFilter): Promise<JournalEntry[]>;
  clear(payeeId: string): Promise<number>;
}

export function journalEntryMatches(e: JournalEntry, filter: JournalFilter): boolean {
  return (
    (filter.method === undefined || e.method === filter.method) &&
    (filter.path === undefined || e.path.includes(filter.path)) &&
    (filter.status === undefined || e.status === filter.status)
  );
}

interface KeptAnswer {
  readonly text: string;
  refs: number;
  /** False again when the line that carried it was lost, so the next entry carries it. */
  carried: boolean;
}

/** A ring, not the shared list (merchant-lists.ts): an append at the cap moves nothing, about half the CPU of the Map-backed list on every request. */
class Ring {
  private readonly items: (JournalEntry | undefined)[] = new Array(JOURNAL_CAP);
  private readonly sizes: number[] = [];
  readonly answers = new Map<string, KeptAnswer>();
  private next = 0;
  size = 0;
  lastId = 0;

  /** Answers the bytes that went, so the tally follows. */
  push(entry: JournalEntry, bytes: number): number {
    if (entry.id > this.lastId) this.lastId = entry.id;
    const freed = this.size === JOURNAL_CAP ? this.dropOldest() : 0;
    this.sizes[this.next] = bytes;
    this.items[this.next] = entry;
    this.next = (this.next + 1) % JOURNAL_CAP;
    this.size++;
    return freed;
  }

  dropOldest(): number {
    if (this.size === 0) return 0;
    const at = (this.next - this.size + JOURNAL_CAP) % JOURNAL_CAP;
    let freed = this.sizes[at] ?? 0;
    const ref = this.items[at]?.answerRef;
    if (ref !== undefined) freed += this.release(ref);
    this.items[at] = undefined;
    this.size--;
    return freed;
  }

  private release(ref: string): number {
    const kept = this.answers.get(ref);
    if (!kept || --kept.refs > 0) return 0;
    this.answers.delete(ref);
    return answerTextBytes(kept.text);
  }

  *newestFirst(): Generator<JournalEntry> {
    for (let i = 1; i <= this.size; i++) yield this.items[(this.next - i + JOURNAL_CAP) % JOURNAL_CAP]!;
  }

  *oldestFirst(): Generator<JournalEntry> {
    for (let i = this.size; i >= 1; i--) yield this.items[(this.next - i + JOURNAL_CAP) % JOURNAL_CAP]!;
  }
}

export class MemoryJournalLog implements JournalLog, TrimmablePart {
  private readonly byMerchant = new Map<string, Ring>();
  readonly bytes = new ByteTally();
  private room: StorageRoom | undefined;

  constructor(private readonly slot: LogSlot = {}) {}

  keepWithin(room: StorageRoom): void {
    this.room = room;
  }

  /** All but the newest, so a merchant always sees its last request. */
  trimOldest(payeeId: string, bytes: number): number {
    const ring = this.byMerchant.get(payeeId);
    let freed = 0;
    while (ring && ring.size > 1 && freed < bytes) freed += ring.dropOldest();
    this.bytes.add(payeeId, -freed);
    return freed;
  }

  /** Without an answer text already written, so a polling loop does not write the same text each time. */
  async append(payeeId: string, entry: NewJournalEntry): Promise<void> {
    const ring = this.ring(payeeId);
    const [kept, carriesAnswer] = this.push(payeeId, ring, ring.lastId + 1, entry);
    const log = this.slot.log;
    if (!log) return;
    const { answerRef, responseBody } = kept;
    // A lost line takes the text with it: the next entry that refers to it carries it again.
    const lost = carriesAnswer && answerRef !== undefined && responseBody !== null ? () => this.unwritten(payeeId, answerRef, responseBody) : undefined;
    log.record({ t: 'journal', payeeId, v: carriesAnswer ? kept : withoutAnswer(kept) }, { lost });
  }

  /** Under the id it had, so ids a client saw stay the same after a restart. */
  restore(payeeId: string, entry: StoredJournalEntry): void {
    this.push(payeeId, this.ring(payeeId), entry.id, entry);
  }

  private ring(payeeId: string): Ring {
    let ring = this.byMerchant.get(payeeId);
    if (!ring) this.byMerchant.set(payeeId, (ring = new Ring()));
    return ring;
  }

  private push(payeeId: string, ring: Ring, id: number, e: NewJournalEntry | StoredJournalEntry): [entry: JournalEntry, carriesAnswer: boolean] {
    const answer = refer(ring.answers, e.answerRef, e.responseBody);
    // The kept string itself, not an equal copy, so memory holds the text once.
    const entry: JournalEntry = answer ? { id, ...e, responseBody: answer.text } : ownAnswer(id, e);
    const first = answer?.refs === 1;
    const bytes = journalEntryBytes(entry);
    this.bytes.add(payeeId, bytes + (first ? answerTextBytes(answer.text) : 0) - ring.push(entry, bytes));
    const carries = answer === undefined || !answer.carried;
    if (answer) answer.carried = true;
    this.room?.kept(payeeId);
    return [entry, carries];
  }

  /** A failed write lost the line that carried the text: the next entry that refers to it must carry it. */
  private unwritten(payeeId: string, ref: string, text: string): void {
    const kept = this.byMerchant.get(payeeId)?.answers.get(ref);
    if (kept?.text === text) kept.carried = false;
  }

  /** In the order that rebuilds the journal: an answer text goes with the first entry that refers to it. */
  *records(): Generator<LogRecord> {
    for (const [payeeId, ring] of this.byMerchant) {
      const written = new Set<string>();
      for (const v of ring.oldestFirst()) {
        const ref = v.answerRef;
        yield { t: 'journal', payeeId, v: ref !== undefined && written.has(ref) ? withoutAnswer(v) : v };
        if (ref !== undefined) written.add(ref);
      }
    }
  }

  async list(payeeId: string, filter: JournalFilter): Promise<JournalEntry[]> {
    const out: JournalEntry[] = [];
    const ring = this.byMerchant.get(payeeId);
    if (!ring) return out;
    for (const e of ring.newestFirst()) {
      if (!journalEntryMatches(e, filter)) continue;
      out.push(e);
      if (out.length >= filter.limit) break;
    }
    return out;
  }

  async clear(payeeId: string): Promise<number> {
    this.slot.log?.write({ t: 'journal-clear', payeeId });
    return this.erase(payeeId);
  }

  /** Memory only: for a change whose own line (a reset, a deletion) clears the journal on replay. */
  erase(payeeId: string): number {
    const size = this.byMerchant.get(payeeId)?.size ?? 0;
    this.byMerchant.delete(payeeId);
    this.bytes.clear(payeeId);
    return size;
  }
}

/** Undefined: the entry keeps its own text (a ref may name two answers; a body undefined was read back without it). */
function refer(answers: Map<string, KeptAnswer>, ref: string | undefined, body: string | null | undefined): KeptAnswer | undefined {
  if (ref === undefined || body === null) return undefined;
  const kept = answers.get(ref);
  if (kept) {
    if (body !== undefined && body !== kept.text) return undefined;
    kept.refs++;
    return kept;
  }
  if (body === undefined) return undefined;
  const fresh = { text: body, refs: 1, carried: false };
  answers.set(ref, fresh);
  return fresh;
}

/** Null text when a repair dropped the line that carried it. */
function ownAnswer(id: number, e: NewJournalEntry | StoredJournalEntry): JournalEntry {
  if (e.answerRef === undefined) return { id, ...e, responseBody: e.responseBody ?? null };
  const { answerRef: _ref, ...own } = e;
  return { id, ...own, responseBody: own.responseBody ?? null };
}

function withoutAnswer(e: JournalEntry): StoredJournalEntry {
  const { responseBody: _body, ...rest } = e;
  return rest;
}
