/**
 * What the file store writes: the records of its log, one JSON object a line, and the snapshot
 * the log is folded into; and the checks that tell a record it can hold from damage.
 *
 * A log line is `{"c":"<crc32>",...the record's other fields}`: the CRC-32 (8 hex digits) of
 * every character after `"c":"<crc32>",`. The line stays one JSON object (a tool, or an earlier
 * version, reads it as before), and it is checked without writing the record out again. Lines
 * of earlier versions carry no "c"; they are read as before, and their fields must be exactly
 * those of their type, so a byte changed in the "c" of a line of ours cannot pass for one.
 */
import { crc32 } from 'node:zlib';
import { apiKeyHash } from '../domain/ids.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import type { Delivery } from './delivery-log.js';
import type { StoredJournalEntry } from './journal-log.js';

export const SNAPSHOT_FORMAT = 'payreq-sandbox/1';

export interface Snapshot {
  format: string;
  /** The first log segment the snapshot does not include. */
  walSegment: number;
  merchants: Merchant[];
  payments: Payment[];
  /** Oldest first per merchant; absent from snapshots of earlier versions. */
  journal?: { payeeId: string; entry: StoredJournalEntry }[];
  /** Oldest first per merchant; absent from snapshots of earlier versions. */
  deliveries?: Delivery[];
}

export type LogRecord =
  | { readonly t: 'merchant'; readonly v: Merchant }
  | { readonly t: 'payment'; readonly v: Payment }
  | { readonly t: 'reset'; readonly payeeId: string }
  | { readonly t: 'prune'; readonly payeeId: string; readonly createdBefore: number }
  | { readonly t: 'journal'; readonly payeeId: string; readonly v: StoredJournalEntry }
  | { readonly t: 'journal-clear'; readonly payeeId: string }
  /** A delivery as it now is: added, or replaced by id (an attempt, a resend). */
  | { readonly t: 'delivery'; readonly v: Delivery }
  | { readonly t: 'deliveries-clear'; readonly payeeId: string }
  /** The merchant deleted, with all it held. */
  | { readonly t: 'merchant-delete'; readonly payeeId: string };

const PREFIX = '{"c":"';
/** `{"c":"` + 8 hex digits + `",` */
const PREFIX_LENGTH = PREFIX.length + 10;

/** The line of `record`, with its checksum and its "\n". */
export function encodeRecord(record: LogRecord): string {
  return checkedLine(record);
}

function checkedLine(value: object): string {
  const rest = JSON.stringify(value).slice(1);
  return `${PREFIX}${hex(crc32(rest))}",${rest}\n`;
}

/**
 * The log's end marker (`<dataFile>.wal-end`): for each segment not yet folded, how many of its
 * bytes were written, all of them acknowledged. A segment shorter than that was cut after it
 * was written, even between two records, where nothing in the segment itself would show it.
 */
export function encodeLogEnd(lengths: ReadonlyMap<number, number>): string {
  // Written after every write of the log: built by hand, it costs a fraction of JSON.stringify.
  let rest = '"segments":[';
  for (const [n, bytes] of lengths) rest += `${rest.length > 12 ? ',' : ''}[${n},${bytes}]`;
  rest += ']}';
  return `${PREFIX}${hex(crc32(rest))}",${rest}\n`;
}

/** The lengths the marker's first line holds, or what is wrong with it. */
export function decodeLogEnd(text: string): Map<number, number> | string {
  const line = text.slice(0, text.indexOf('\n') + 1 || undefined).trimEnd();
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return 'is not a whole line of JSON';
  }
  if (!hasChecksum(line) || hex(crc32(line.slice(PREFIX_LENGTH))) !== line.slice(PREFIX.length, PREFIX.length + 8)) return 'fails its checksum';
  const segments = isObject(parsed) ? parsed.segments : undefined;
  const pairs = Array.isArray(segments) && segments.every((p) => Array.isArray(p) && p.length === 2 && p.every((n) => Number.isSafeInteger(n) && n >= 0));
  return pairs ? new Map(segments as [number, number][]) : 'does not hold segment lengths';
}

export function hex(crc: number): string {
  return (crc >>> 0).toString(16).padStart(8, '0');
}

export function hasChecksum(line: string): boolean {
  return line.startsWith(PREFIX) && line.charCodeAt(PREFIX_LENGTH - 2) === 0x22 && /^[0-9a-f]{8}$/.test(line.slice(PREFIX.length, PREFIX.length + 8));
}

export type DecodedLine = { readonly record: LogRecord; readonly checksum: boolean } | { readonly problem: string; readonly whole: boolean; readonly what?: string };

/**
 * The record of one line (without its "\n"), or what is wrong with it, said of the line ("is
 * ..."). `whole` is false when the line is not one whole JSON value: what a torn write leaves.
 */
export function decodeLine(line: string): DecodedLine {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { problem: 'is not a whole log record', whole: false };
  }
  const checksum = hasChecksum(line);
  if (checksum) {
    const stored = line.slice(PREFIX.length, PREFIX.length + 8);
    const computed = hex(crc32(line.slice(PREFIX_LENGTH)));
    if (stored !== computed) return { problem: `fails its checksum (stored ${stored}, computed ${computed}): it was changed after it was written`, whole: true, what: describe(parsed) };
  }
  const problem = logRecordProblem(parsed, checksum);
  return problem ? { problem, whole: true, what: describe(parsed) } : { record: parsed as LogRecord, checksum };
}

/** The fields each record type has, besides t (and c). */
const FIELDS: Record<LogRecord['t'], readonly string[]> = {
  merchant: ['v'],
  payment: ['v'],
  reset: ['payeeId'],
  prune: ['payeeId', 'createdBefore'],
  journal: ['payeeId', 'v'],
  'journal-clear': ['payeeId'],
  delivery: ['v'],
  'deliveries-clear': ['payeeId'],
  'merchant-delete': ['payeeId'],
};

/** What makes a parsed log line unusable, said of the line ("is ..."), or undefined. */
function logRecordProblem(r: unknown, checksum: boolean): string | undefined {
  if (!isObject(r) || Array.isArray(r)) return `is ${kindOf(r)}, not a log record`;
  const t = r.t as LogRecord['t'];
  const fields = Object.hasOwn(FIELDS, String(t)) ? FIELDS[t] : undefined;
  if (!fields) return `has type t=${JSON.stringify(r.t) ?? 'missing'}, none of ${Object.keys(FIELDS).join(', ')}`;
  const extra = Object.keys(r).find((k) => k !== 't' && !(checksum && k === 'c') && !fields.includes(k));
  if (extra !== undefined) return extra === 'c' ? 'has a damaged checksum field "c"' : `is a ${t} record with an unknown field ${JSON.stringify(extra)}`;
  switch (t) {
    case 'merchant':
    case 'payment': {
      const problem = (t === 'merchant' ? merchantProblem : paymentProblem)(r.v);
      return problem && `is a ${t} record whose v ${problem}`;
    }
    case 'journal': {
      const problem = typeof r.payeeId === 'string' ? journalEntryProblem(r.v) : 'is without its payeeId';
      return problem && `is a journal record whose v ${problem}`;
    }
    case 'delivery': {
      const problem = deliveryProblem(r.v);
      return problem && `is a delivery record whose v ${problem}`;
    }
    case 'prune':
      return typeof r.payeeId === 'string' && typeof r.createdBefore === 'number' ? undefined : 'is a prune record without its payeeId or createdBefore';
    default:
      return typeof r.payeeId === 'string' ? undefined : `is a ${t} record without its payeeId`;
  }
}

/** What makes a parsed snapshot unusable as a whole, or undefined: checked before anything is applied. */
export function snapshotProblem(s: unknown): string | undefined {
  if (!isObject(s) || Array.isArray(s)) return `it holds ${kindOf(s)}, not a store snapshot`;
  if (!Number.isSafeInteger(s.walSegment) || (s.walSegment as number) < 0) return `walSegment is ${kindOf(s.walSegment)}, not a segment number`;
  for (const key of ['merchants', 'payments', 'journal', 'deliveries'] as const) {
    if (!Array.isArray(s[key]) && (key === 'merchants' || key === 'payments' || s[key] !== undefined)) return `${key} is not a list`;
  }
  return undefined;
}

/** The lists of a snapshot and the check of each of their elements. */
export const SNAPSHOT_LISTS = [
  ['merchants', merchantProblem],
  ['payments', paymentProblem],
  ['journal', (row: unknown) => (isObject(row) && typeof row.payeeId === 'string' ? journalEntryProblem(row.entry) : 'is not a journal row')],
  ['deliveries', deliveryProblem],
] as const;

function merchantProblem(m: unknown): string | undefined {
  if (!isObject(m)) return `is ${kindOf(m)}, not a merchant`;
  if (typeof m.payeeId !== 'string') return 'is a merchant without its payeeId';
  // apiKeys: the plain keys an earlier version wrote (hashed as they are loaded: keysHashed).
  const keys = m.apiKeyHashes ?? m.apiKeys;
  if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string')) return `is merchant ${m.payeeId} without its apiKeyHashes`;
  return undefined;
}

/**
 * A merchant an earlier version wrote, with its API keys in plain text, as stored now (their
 * SHA-256 in place of them); undefined for a merchant already so.
 */
export function keysHashed(m: Merchant): Merchant | undefined {
  const earlier = m as Merchant & { readonly apiKeys?: readonly string[] };
  if (earlier.apiKeys === undefined) return undefined;
  const { apiKeys, ...rest } = earlier;
  return { ...rest, apiKeyHashes: [...(earlier.apiKeyHashes ?? []), ...apiKeys.map(apiKeyHash)] };
}

/** The fields the store indexes a payment by: without them it cannot be held at all. */
const PAYMENT_KEYS = ['id', 'payeeId', 'token', 'code', 'merchantRefNo', 'status'] as const;

function paymentProblem(p: unknown): string | undefined {
  if (!isObject(p)) return `is ${kindOf(p)}, not a payment`;
  const missing = PAYMENT_KEYS.find((key) => typeof p[key] !== 'string');
  return missing && `is a payment without its ${missing}`;
}

function journalEntryProblem(e: unknown): string | undefined {
  if (!isObject(e)) return `is ${kindOf(e)}, not a journal entry`;
  if (!(Number.isSafeInteger(e.id) && typeof e.method === 'string' && typeof e.path === 'string')) return 'is a journal entry without its id, method or path';
  return e.answerRef === undefined || typeof e.answerRef === 'string' ? undefined : 'is a journal entry whose answerRef is not a text';
}

const DELIVERY_STATES: readonly unknown[] = ['pending', 'delivered', 'failed'];

function deliveryProblem(d: unknown): string | undefined {
  if (!isObject(d)) return `is ${kindOf(d)}, not a delivery`;
  if (typeof d.id !== 'string' || typeof d.payeeId !== 'string') return 'is a delivery without its id or payeeId';
  return DELIVERY_STATES.includes(d.state) && Array.isArray(d.attempts) ? undefined : `is delivery ${d.id} without its state or attempts`;
}

/** What a record holds, for a report of what was dropped: "payment pay_..." */
function describe(r: unknown): string | undefined {
  if (!isObject(r) || typeof r.t !== 'string') return undefined;
  const v = isObject(r.v) ? r.v : undefined;
  const id = v?.id ?? v?.payeeId ?? r.payeeId;
  return typeof id === 'string' || typeof id === 'number' ? `${r.t} ${String(id)}` : r.t;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'missing';
  return Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value).slice(0, 40)}`;
}
