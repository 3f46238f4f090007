/**
 * The request journal: what each merchant actually sent and got, newest first, bounded per
 * merchant (the store keeps it); secrets are masked before an entry is kept (SPEC 18), and once
 * more when it is read out.
 */
import { JOURNAL_CAP } from '../store/journal-log.js';
import type { JournalEntry, JournalFilter, JournalLog, NewJournalEntry } from '../store/journal-log.js';

export type { JournalEntry, JournalFilter };
export { JOURNAL_CAP };

/** Bodies are kept up to this many characters. */
export const JOURNAL_BODY_CAP = 8 * 1024;

const SECRET_FIELDS = new Set(['sign', 'signing_salt', 'api_key', 'salt', 'secret']);
const SECRET_IN_TEXT = /("(?:sign|signing_salt|api_key|salt|secret)"\s*:\s*)"((?:[^"\\]|\\.)*)"/g;
/** Text that may hold a secret field: one of the names, or an escape that can spell one. */
const MAY_HOLD_SECRET = /sign|salt|api_key|secret|\\u/;

function mask(value: string): string {
  return value.startsWith('***') ? value : `***${value.length > 8 ? value.slice(-4) : ''}`;
}

/** A JSON.parse reviver: secret fields masked, at any depth, however their names were escaped. */
const maskSecretField = (key: string, value: unknown): unknown => (SECRET_FIELDS.has(key) && typeof value === 'string' ? mask(value) : value);

/**
 * A body as it may be kept: secret fields masked (before it reaches any store, memory, file or
 * table), then cut to the cap.
 */
export function bodyToKeep(text: string): string {
  const masked = maskSecrets(text);
  return masked.length <= JOURNAL_BODY_CAP ? masked : ownCopy(masked.slice(0, JOURNAL_BODY_CAP));
}

/**
 * `text` with its secret fields masked, in the text itself, so what else it says is kept as written
 * (10.50, \u00e9). A name written with \u escapes is seen only once decoded: then the parsed value
 * is masked and written again (a duplicate name, which parsing drops, goes with it).
 */
function maskSecrets(text: string): string {
  // Bodies without a secret's name, or an escape that can spell one, pass untouched at the cost of one scan.
  if (!MAY_HOLD_SECRET.test(text)) return text;
  const masked = text.replace(SECRET_IN_TEXT, (_m, head: string, raw: string) => `${head}${maskedString(raw)}`);
  if (!text.includes('\\u')) return masked;
  let value: unknown;
  try {
    value = JSON.parse(text, maskSecretField);
  } catch {
    // Not JSON: the names as written are all the text can show.
    return masked;
  }
  // Only JSON is scanned for its names: in other text, quotes escaped without end make that scan quadratic.
  return spellsSecretNameWithEscapes(text) ? JSON.stringify(value) : masked;
}

/** Every JSON string of a text, in order (a string is never entered mid-way), with the colon after it when it is a name. */
const JSON_STRING = /"((?:[^"\\]|\\.)*)"(\s*:)?/g;

/** The text of a JSON string (as between its quotes) decoded, or undefined when it is not one. */
function decoded(raw: string): string | undefined {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return undefined;
  }
}

/** True when a name in `text` is a secret field's written with escapes, which SECRET_IN_TEXT does not see. */
function spellsSecretNameWithEscapes(text: string): boolean {
  for (const [, raw, colon] of text.matchAll(JSON_STRING)) {
    if (colon !== undefined && raw!.includes('\\') && SECRET_FIELDS.has(decoded(raw!) ?? '')) return true;
  }
  return false;
}

/** A JSON string's text (`raw`, as between its quotes) masked: its last characters decoded first, so an escape is never cut in two. */
function maskedString(raw: string): string {
  if (!raw.includes('\\')) return `"${mask(raw)}"`;
  const value = decoded(raw);
  return value === undefined ? '"***"' : JSON.stringify(mask(value));
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

/** A kept body's text as shown: secret fields masked once more (escaped names too). */
export function maskedBodyText(text: string | null): string | null {
  if (text === null || text === '') return null;
  return maskSecrets(text);
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
