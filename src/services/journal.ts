/**
 * The request journal: what each merchant actually sent and got, newest first. Kept in memory,
 * bounded per merchant; secrets are masked when entries are read out.
 */
export interface JournalEntry {
  readonly id: number;
  readonly at: number;
  readonly method: string;
  readonly path: string;
  /** The call used /v1/... without /openapi, which only one sample of the interface shows. */
  readonly alias: boolean;
  readonly status: number | 'dropped';
  readonly code: number | null;
  readonly requestBody: string | null;
  readonly responseBody: string | null;
  readonly latencyMs: number;
  readonly fault: string | null;
  readonly warnings: readonly string[];
}

export interface JournalFilter {
  readonly method?: string;
  readonly path?: string;
  readonly status?: number;
  readonly limit: number;
}

export const JOURNAL_CAP = 500;
/** Bodies are kept up to this many characters. */
export const JOURNAL_BODY_CAP = 8 * 1024;

const SECRET_FIELDS = new Set(['sign', 'signing_salt', 'api_key', 'salt']);
const SECRET_IN_TEXT = /("(?:sign|signing_salt|api_key|salt)"\s*:\s*)"((?:[^"\\]|\\.)*)"/g;

function mask(value: string): string {
  return value.startsWith('***') ? value : `***${value.length > 8 ? value.slice(-4) : ''}`;
}

/**
 * A body as it may be kept: secret fields masked in the text itself, then cut to the cap, so a
 * body too long to parse after cutting still shows no secret.
 */
export function bodyToKeep(text: string): string {
  // A whole body is masked when it is read out (maskedBody); only one about to be cut needs it now.
  if (text.length <= JOURNAL_BODY_CAP) return text;
  return text.replace(SECRET_IN_TEXT, (_m, head: string, value: string) => `${head}"${mask(value)}"`).slice(0, JOURNAL_BODY_CAP);
}

/** A kept body as shown: parsed when it is JSON, secret fields masked once more (escaped names too). */
export function maskedBody(text: string | null): unknown {
  if (text === null || text === '') return null;
  try {
    return JSON.parse(text, (key, value: unknown) => (SECRET_FIELDS.has(key) && typeof value === 'string' ? mask(value) : value));
  } catch {
    return text;
  }
}

class Ring {
  private readonly items: (JournalEntry | undefined)[] = new Array(JOURNAL_CAP);
  private next = 0;
  size = 0;

  push(entry: JournalEntry): void {
    this.items[this.next] = entry;
    this.next = (this.next + 1) % JOURNAL_CAP;
    if (this.size < JOURNAL_CAP) this.size++;
  }

  *newestFirst(): Generator<JournalEntry> {
    for (let i = 1; i <= this.size; i++) yield this.items[(this.next - i + JOURNAL_CAP) % JOURNAL_CAP]!;
  }
}

export class RequestJournal {
  private readonly byMerchant = new Map<string, Ring>();
  private sequence = 0;

  constructor(readonly enabled = true) {}

  nextId(): number {
    return ++this.sequence;
  }

  record(payeeId: string, entry: JournalEntry): void {
    if (!this.enabled) return;
    let ring = this.byMerchant.get(payeeId);
    if (!ring) this.byMerchant.set(payeeId, (ring = new Ring()));
    ring.push(entry);
  }

  list(payeeId: string, filter: JournalFilter): JournalEntry[] {
    const out: JournalEntry[] = [];
    const ring = this.byMerchant.get(payeeId);
    if (!ring) return out;
    for (const e of ring.newestFirst()) {
      if (filter.method !== undefined && e.method !== filter.method) continue;
      if (filter.path !== undefined && !e.path.includes(filter.path)) continue;
      if (filter.status !== undefined && e.status !== filter.status) continue;
      out.push(e);
      if (out.length >= filter.limit) break;
    }
    return out;
  }

  clear(payeeId: string): number {
    const size = this.byMerchant.get(payeeId)?.size ?? 0;
    this.byMerchant.delete(payeeId);
    return size;
  }
}
