// Only a cut last line is dropped (a crash mid-write); other damage refuses the start, so no change is ever lost silently.
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../logger.js';
import { FORMAT, jsonObject, parseRecord, type LogRecord } from './file-records.js';

const CONVERT_SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../scripts/convert-data.js');

class Damage {
  readonly dropped: string[] = [];
  private readonly copies = new Map<string, string>();
  private readonly stamp = new Date().toISOString().replace(/[:.]/g, '-');
  constructor(private readonly repair: boolean) {}

  found(file: string, place: string, problem: string): void {
    if (!this.repair) {
      throw new Error(`${place} ${problem}. The store is damaged: restore ${file} from a copy, or start with --repair to go on with every whole line that can be read (it says what it drops and keeps a copy of each damaged file).`);
    }
    this.dropped.push(`${place} ${problem}`);
    if (existsSync(file)) this.copies.set(file, `${file}.damaged-${this.stamp}`);
  }

  /** Copies come before the new snapshot replaces the damaged files. */
  report(dataFile: string, logger: Logger): void {
    for (const [file, copy] of this.copies) copyFileSync(file, copy);
    logger.warn({ file: dataFile, dropped: this.dropped, copies: [...this.copies.values()] }, 'store started with --repair: it dropped the lines that could not be read, kept copies of the damaged files, and wrote what was read as a new snapshot');
  }
}

/** logBytes null: the log must start afresh (no files, a repair, or a stop before the log restarted). */
export function readStore(dataFile: string, logFile: string, repair: boolean, logger: Logger, apply: (r: LogRecord) => void) {
  checkNeighbours(dataFile, logFile, logger);
  const snapshot = existsSync(dataFile) ? readFileSync(dataFile) : null;
  const log = existsSync(logFile) ? readFileSync(logFile) : null;
  if (snapshot === null && log === null) return { generation: 0, logBytes: null, logLength: 0 };
  const damage = new Damage(repair);
  if (snapshot === null) damage.found(dataFile, dataFile, `is missing, but its log ${logFile} is there: the state the log goes on from is gone`);
  const read = snapshot && readSnapshot(dataFile, snapshot, damage, apply);
  const generation = read?.generation ?? null;
  if (log === null) damage.found(logFile, logFile, `is missing, but the snapshot ${dataFile} is there: every change since that snapshot is gone`);
  const logBytes = log && replayLog(logFile, log, generation, read?.logFrom, damage, logger, apply);
  if (damage.dropped.length > 0) damage.report(dataFile, logger);
  return { generation: generation ?? 0, logBytes: damage.dropped.length > 0 ? null : logBytes, logLength: log?.length ?? 0 };
}

function linesOf(bytes: Buffer): { lines: string[]; whole: number } {
  const whole = bytes.lastIndexOf(0x0a) + 1;
  const lines = bytes.toString('utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  return { lines, whole };
}

function readSnapshot(file: string, bytes: Buffer, damage: Damage, apply: (r: LogRecord) => void): { generation: number; logFrom?: number } {
  const { lines, whole } = linesOf(bytes);
  const header = headerOf(lines[0], 'snapshot');
  if (header === undefined) {
    if (bytes.subarray(0, 200).includes('"payreq-sandbox/1"')) throw earlierFormat(file);
    throw new Error(`${file} is not a payreq-sandbox store: its first line is not {"t":"snapshot","format":"payreq-sandbox/2",...}. Point --data at a payreq-sandbox store, or move ${file} away to start an empty one.`);
  }
  const end = jsonObject(lines.at(-1));
  const count = whole === bytes.length && typeof end === 'object' && end.t === 'end' && Number.isSafeInteger(end.records) ? (end.records as number) : undefined;
  if (count === undefined || count !== lines.length - 2) damage.found(file, file, `is cut short: it does not end with its {"t":"end","records":N} line (of ${Math.max(0, lines.length - 2)} records)`);
  for (let i = 1; i < lines.length - (count === undefined ? 0 : 1); i++) applyLine(file, lines[i]!, i + 1, damage, apply);
  return { generation: header.generation, logFrom: Number.isSafeInteger(header.logFrom) ? (header.logFrom as number) : undefined };
}

function headerOf(text: string | undefined, t: 'snapshot' | 'log'): { generation: number; logFrom?: unknown } | undefined {
  const h = jsonObject(text);
  return typeof h === 'object' && h.t === t && h.format === FORMAT && Number.isSafeInteger(h.generation) ? (h as { generation: number }) : undefined;
}

function replayLog(file: string, bytes: Buffer, generation: number | null, logFrom: number | undefined, damage: Damage, logger: Logger, apply: (r: LogRecord) => void): number | null {
  const { lines, whole } = linesOf(bytes);
  if (whole < bytes.length) {
    logger.warn({ file, line: lines.length, from_byte: whole }, 'store dropped a cut last line of its log: a write a crash cut short, never acknowledged');
    lines.pop();
  }
  const follows = headerOf(lines[0], 'log')?.generation;
  // Stopped before the log restarted: the snapshot names the byte it holds the log up to.
  const before = generation !== null && follows !== undefined && follows < generation;
  // Without a snapshot (a repair goes on without it), the log is read whatever it follows.
  if (!before && (follows === undefined || (generation !== null && follows !== generation))) {
    damage.found(file, `${file} line 1`, follows !== undefined ? `goes on from snapshot ${follows}, but the snapshot is ${generation}` : 'is not the header of a payreq-sandbox/2 log');
    return null;
  }
  const from = before ? Math.max(1, linesOf(bytes.subarray(0, logFrom)).lines.length) : 1;
  for (let i = from; i < lines.length; i++) applyLine(file, lines[i]!, i + 1, damage, apply);
  return before ? null : whole;
}

function applyLine(file: string, text: string, n: number, damage: Damage, apply: (r: LogRecord) => void): void {
  const record = parseRecord(text);
  if (typeof record === 'string') damage.found(file, `${file} line ${n}`, record);
  else apply(record);
}

/** Files of the earlier format would be ignored silently, so they refuse the start. */
function checkNeighbours(dataFile: string, logFile: string, logger: Logger): void {
  const dir = path.dirname(dataFile);
  const base = path.basename(dataFile);
  const ours = new Set([path.basename(logFile), `${base}.healthz-probe`]);
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(`${base}.`) || ours.has(name) || name.includes('.damaged-') || name.startsWith(`${base}.before-conversion`)) continue;
    if (/\.(wal\.\d+|wal-end|idempotency|readiness)/.test(name.slice(base.length))) throw earlierFormat(dataFile);
    logger.warn({ file: path.join(dir, name) }, 'a file beside the store that is not one of its files: the store neither reads nor changes it');
  }
}

function earlierFormat(dataFile: string): Error {
  return new Error(`${dataFile} was written by an earlier version of payreq-sandbox (format payreq-sandbox/1, with .wal segments). Convert it once with: node ${CONVERT_SCRIPT} ${dataFile} (it keeps the old files in ${dataFile}.before-conversion/), then start again.`);
}
