#!/usr/bin/env node
/**
 * One-off conversion of a file store written by earlier versions of payreq-sandbox (format
 * payreq-sandbox/1: a JSON snapshot, `.wal.<n>` log segments with CRC-checked lines, a
 * `.wal-end` marker, `.idempotency*` and `.readiness*` part files) into the store of this
 * version: `<data file>` (a snapshot of JSON lines) and `<data file>.log` (JSON lines).
 *
 *   node scripts/convert-data.js data/sandbox.json
 *
 * The old files are moved into `<data file>.before-conversion/`, untouched. Plain-text API keys
 * that very early versions kept are replaced by their SHA-256, as the sandbox keeps them. A line
 * that cannot be read stops the conversion, naming file and line (nothing is changed then); only
 * a cut last line of a segment (a write a crash cut short, never acknowledged) is skipped.
 * Node built-ins only, so it runs from a checkout or an installed package alike.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';

const FORMAT = 'payreq-sandbox/2';

function fail(message) {
  console.error(`convert-data: ${message}`);
  process.exit(1);
}

const dataFile = process.argv[2];
if (!dataFile || process.argv.length > 3) fail('usage: node scripts/convert-data.js <data file> (the --data of serve, e.g. data/sandbox.json)');
const dir = path.dirname(dataFile);
const base = path.basename(dataFile);
const names = existsSync(dir) ? readdirSync(dir) : [];
const OLD = /^\.(wal\.\d+|wal-end|(idempotency|readiness)(\.wal\.\d+|\.wal-end)?)$/;
const oldFiles = names.filter((n) => n.startsWith(base) && OLD.test(n.slice(base.length))).map((n) => path.join(dir, n));
const snapshotText = existsSync(dataFile) ? readFileSync(dataFile, 'utf8') : null;
if (snapshotText !== null && snapshotText.startsWith('{"t":"snapshot"')) fail(`${dataFile} is already in format ${FORMAT}: nothing to convert.`);
if (snapshotText !== null) oldFiles.push(dataFile);
if (oldFiles.length === 0) fail(`no store of an earlier version at ${dataFile} (neither it nor ${dataFile}.wal.* exist).`);

const records = [];
const hashed = (m) => (m.apiKeys === undefined ? m : (({ apiKeys, ...rest }) => ({ ...rest, apiKeyHashes: [...(m.apiKeyHashes ?? []), ...apiKeys.map((k) => createHash('sha256').update(k).digest('hex'))] }))(m));
const mainRecord = (r) => (r.t === 'merchant' ? { t: 'merchant', v: hashed(r.v) } : r);

function parsedJson(file, text) {
  try {
    return JSON.parse(text);
  } catch (err) {
    fail(`${file} is not valid JSON (${err.message}): restore it from a copy before converting.`);
  }
}

/** The records of the segments `<file>.wal.<n>` from `first` on, in order, without their checksum field. */
function segmentRecords(file, first, convert) {
  const prefix = `${path.basename(file)}.wal.`;
  const numbers = names.filter((n) => n.startsWith(prefix) && /^\d+$/.test(n.slice(prefix.length))).map((n) => Number(n.slice(prefix.length))).filter((n) => n >= first).sort((a, b) => a - b);
  for (const n of numbers) {
    const segment = `${file}.wal.${n}`;
    const lines = readFileSync(segment, 'utf8').split('\n');
    const cut = lines.at(-1) !== '';
    lines.forEach((text, i) => {
      if (text === '') return;
      let r;
      try {
        r = JSON.parse(text);
      } catch {
        if (cut && i === lines.length - 1) return console.error(`convert-data: ${segment} line ${i + 1} skipped: a write a crash cut short, never acknowledged`);
        fail(`${segment} line ${i + 1} is not valid JSON: restore it from a copy, or start the earlier version once with --repair, before converting.`);
      }
      const { c: _checksum, ...record } = r;
      const converted = convert(record);
      if (converted) records.push(converted);
    });
  }
}

// The main snapshot, then its log.
const snapshot = snapshotText === null ? { walSegment: 0, merchants: [], payments: [] } : parsedJson(dataFile, snapshotText);
if (snapshot.format !== undefined && snapshot.format !== 'payreq-sandbox/1') fail(`${dataFile} is not a payreq-sandbox store (format ${snapshot.format}).`);
for (const v of snapshot.merchants ?? []) records.push({ t: 'merchant', v: hashed(v) });
for (const v of snapshot.payments ?? []) records.push({ t: 'payment', v });
for (const { payeeId, entry } of snapshot.journal ?? []) records.push({ t: 'journal', payeeId, v: entry });
for (const v of snapshot.deliveries ?? []) records.push({ t: 'delivery', v });
segmentRecords(dataFile, snapshot.walSegment ?? 0, mainRecord);

// The parts: idempotency keys and readiness evidence. A clear (a reset) has no line of its own in
// the new format: what came before it of that merchant's part is left out instead.
const parts = {
  idempotency: { t: 'key', row: ({ payeeId, v }) => ({ t: 'key', payeeId, v }) },
  readiness: { t: 'seen', row: ({ payeeId, id, v }) => ({ t: 'seen', payeeId, id, v }) },
};
for (const [name, part] of Object.entries(parts)) {
  const file = `${dataFile}.${name}`;
  const partSnapshot = existsSync(file) ? parsedJson(file, readFileSync(file, 'utf8')) : { walSegment: 0, rows: [] };
  for (const row of partSnapshot.rows ?? []) records.push(part.row(row));
  segmentRecords(file, partSnapshot.walSegment ?? 0, (r) => {
    if (r.t === part.t) return r.t === 'seen' ? part.row(r) : r;
    if (r.t !== 'clear') return undefined;
    for (let i = records.length - 1; i >= 0; i--) if (records[i].t === part.t && records[i].payeeId === r.payeeId) records.splice(i, 1);
    return undefined;
  });
}

/** Writes `lines` to `<file>.converting`, flushed to the disk; answers that name. */
function written(file, lines) {
  const temp = `${file}.converting`;
  const fd = openSync(temp, 'w');
  for (const line of lines) writeSync(fd, `${JSON.stringify(line)}\n`);
  fsyncSync(fd);
  closeSync(fd);
  return temp;
}

const newSnapshot = written(dataFile, [{ t: 'snapshot', format: FORMAT, generation: 1 }, ...records, { t: 'end', records: records.length }]);
const newLog = written(`${dataFile}.log`, [{ t: 'log', format: FORMAT, generation: 1 }]);
const kept = `${dataFile}.before-conversion`;
mkdirSync(kept, { recursive: true });
for (const file of oldFiles) renameSync(file, path.join(kept, path.basename(file)));
renameSync(newSnapshot, dataFile);
renameSync(newLog, `${dataFile}.log`);
console.log(`convert-data: ${dataFile} converted to ${FORMAT}: ${records.length} records in ${dataFile}, an empty log in ${dataFile}.log. The old files are in ${kept}/ (delete them once the sandbox runs: an early version kept API keys there in plain text).`);
