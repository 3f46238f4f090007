// Bounded per merchant, so no merchant's traffic grows the store without end.
import { MerchantLists } from './merchant-lists.js';
import { answerTextBytes, journalEntryBytes } from './storage-quota.js';
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

/** What a merchant's entries share: kept apart from the entries, which the bounded lists hold. */
interface MerchantAnswers {
  readonly answers: Map<string, KeptAnswer>;
  lastId: number;
}

export class MemoryJournalLog implements JournalLog {
  private readonly byMerchant = new Map<string, MerchantAnswers>();
  /** All but the newest trimmed, so a merchant always sees its last request. */
  readonly entries = new MerchantLists<number, JournalEntry>({
    cap: JOURNAL_CAP,
    bytesOf: journalEntryBytes,
    keepsNewest: 1,
    dropped: (payeeId, e) => (e.answerRef === undefined ? 0 : this.release(payeeId, e.answerRef)),
  });

  constructor(private readonly slot: LogSlot) {}

  /** Without an answer text already written, so a polling loop does not write the same text each time. */
  async append(payeeId: string, entry: NewJournalEntry): Promise<void> {
    const [kept, carriesAnswer] = this.push(payeeId, this.merchant(payeeId).lastId + 1, entry);
    const log = this.slot.log;
    if (!log) return;
    const { answerRef, responseBody } = kept;
    // A lost line takes the text with it: the next entry that refers to it carries it again.
    const lost = carriesAnswer && answerRef !== undefined && responseBody !== null ? () => this.unwritten(payeeId, answerRef, responseBody) : undefined;
    log.record({ t: 'journal', payeeId, v: carriesAnswer ? kept : withoutAnswer(kept) }, { lost });
  }

  /** Under the id it had, so ids a client saw stay the same after a restart. */
  restore(payeeId: string, entry: StoredJournalEntry): void {
    this.push(payeeId, entry.id, entry);
  }

  private merchant(payeeId: string): MerchantAnswers {
    let merchant = this.byMerchant.get(payeeId);
    if (!merchant) this.byMerchant.set(payeeId, (merchant = { answers: new Map(), lastId: 0 }));
    return merchant;
  }

  private push(payeeId: string, id: number, e: NewJournalEntry | StoredJournalEntry): [entry: JournalEntry, carriesAnswer: boolean] {
    const merchant = this.merchant(payeeId);
    const answer = refer(merchant.answers, e.answerRef, e.responseBody);
    // The kept string itself, not an equal copy, so memory holds the text once.
    const entry: JournalEntry = answer ? { id, ...e, responseBody: answer.text } : ownAnswer(id, e);
    if (id > merchant.lastId) merchant.lastId = id;
    if (answer?.refs === 1) this.entries.bytes.add(payeeId, answerTextBytes(answer.text));
    const carries = answer === undefined || !answer.carried;
    if (answer) answer.carried = true;
    this.entries.put(payeeId, id, entry);
    return [entry, carries];
  }

  private release(payeeId: string, ref: string): number {
    const answers = this.byMerchant.get(payeeId)?.answers;
    const kept = answers?.get(ref);
    if (!kept || --kept.refs > 0) return 0;
    answers?.delete(ref);
    return answerTextBytes(kept.text);
  }

  /** A failed write lost the line that carried the text: the next entry that refers to it must carry it. */
  private unwritten(payeeId: string, ref: string, text: string): void {
    const kept = this.byMerchant.get(payeeId)?.answers.get(ref);
    if (kept?.text === text) kept.carried = false;
  }

  /** In the order that rebuilds the journal: an answer text goes with the first entry that refers to it. */
  *records(): Generator<LogRecord> {
    for (const payeeId of this.entries.merchants()) {
      const written = new Set<string>();
      for (const [, v] of this.entries.oldestFirst(payeeId)) {
        const ref = v.answerRef;
        yield { t: 'journal', payeeId, v: ref !== undefined && written.has(ref) ? withoutAnswer(v) : v };
        if (ref !== undefined) written.add(ref);
      }
    }
  }

  async list(payeeId: string, filter: JournalFilter): Promise<JournalEntry[]> {
    return this.entries.newestFirst(payeeId, filter.limit, (e) => journalEntryMatches(e, filter));
  }

  async clear(payeeId: string): Promise<number> {
    this.slot.log?.write({ t: 'journal-clear', payeeId });
    return this.erase(payeeId);
  }

  /** Memory only: for a change whose own line (a reset, a deletion) clears the journal on replay. */
  erase(payeeId: string): number {
    this.byMerchant.delete(payeeId);
    return this.entries.clear(payeeId);
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
