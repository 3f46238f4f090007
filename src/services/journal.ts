/**
 * The request journal: what each merchant actually sent and got, newest first, bounded per
 * merchant (the store keeps it); secrets are masked when entries are read out.
 */
import { JOURNAL_CAP } from '../store/journal-log.js';
import type { JournalEntry, JournalFilter, JournalLog, NewJournalEntry } from '../store/journal-log.js';

export type { JournalEntry, JournalFilter };
export { JOURNAL_CAP };

/** Bodies are kept up to this many characters. */
export const JOURNAL_BODY_CAP = 8 * 1024;

const SECRET_FIELDS = new Set(['sign', 'signing_salt', 'api_key', 'salt', 'secret']);
const SECRET_IN_TEXT = /("(?:sign|signing_salt|api_key|salt|secret)"\s*:\s*)"((?:[^"\\]|\\.)*)"/g;

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
  return ownCopy(text.replace(SECRET_IN_TEXT, (_m, head: string, value: string) => `${head}"${mask(value)}"`).slice(0, JOURNAL_BODY_CAP));
}

/**
 * `text` in memory of its own: V8 keeps a slice of a long string as a view of the whole, so a
 * kept 8 KiB cut held the whole body (or a journal read's whole answer). Decoding fresh bytes
 * makes a new string; UTF-8 keeps ASCII at a byte a character, UTF-16 keeps a lone surrogate
 * (a cut through a pair) as it was, where UTF-8 would change it to U+FFFD.
 */
function ownCopy(text: string): string {
  const encoding = LONE_SURROGATE.test(text) ? 'utf16le' : 'utf8';
  return Buffer.from(text, encoding).toString(encoding);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A kept body as shown: parsed when it is JSON, secret fields masked once more (escaped names too). */
export function maskedBody(text: string | null): unknown {
  if (text === null || text === '') return null;
  try {
    return JSON.parse(text, (key, value: unknown) => (SECRET_FIELDS.has(key) && typeof value === 'string' ? mask(value) : value));
  } catch {
    return text;
  }
}

/** The journal's policy (on or off); where entries are kept is the store's. */
export class RequestJournal {
  constructor(
    private readonly log: JournalLog,
    readonly enabled = true,
  ) {}

  record(payeeId: string, entry: NewJournalEntry): Promise<void> {
    return this.enabled ? this.log.append(payeeId, entry) : Promise.resolve();
  }

  list(payeeId: string, filter: JournalFilter): Promise<JournalEntry[]> {
    return this.log.list(payeeId, filter);
  }

  clear(payeeId: string): Promise<number> {
    return this.log.clear(payeeId);
  }
}
