/**
 * The longest event-loop stall while the file store writes a snapshot of a large state: N
 * payments created through the store's API, 10 per event-loop turn, with the snapshot threshold
 * set so that it is passed near the end; then the time a snapshot takes from start to done.
 *
 *   node bench/snapshot-pause.js [dist folder, default ./dist] [N, default 100000]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const dist = path.resolve(process.argv[2] ?? 'dist');
const n = Number(process.argv[3] ?? 100_000);
const { FileStore } = await import(path.join(dist, 'store/file-store.js'));
const { newPayment } = await import(path.join(dist, 'domain/payment.js'));
const { newPaymentCode, newPaymentId, newPaymentToken } = await import(path.join(dist, 'domain/ids.js'));

const dir = mkdtempSync(path.join(tmpdir(), 'payreq-snapshot-'));
const dataFile = path.join(dir, 's.json');
// About 590 bytes a payment's line: the threshold is passed at ~95% of N.
const threshold = Math.round(n * 0.95 * 590);
const store = new FileStore({ dataFile, snapshotAfterBytes: threshold });
await store.open();
let i = 0;
const payment = () => newPayment({ id: newPaymentId(), token: newPaymentToken(), code: newPaymentCode(), payeeId: `M${i % 50}`, merchantRefNo: `ref-${i++}`, productType: 'QR_DYNAMIC', currency: 'SGD', amountMinor: 1050, now: Date.now(), ttlMs: 900_000 });
const turn = () => new Promise((resolve) => setImmediate(resolve));

// Event-loop delay while the log fills up to 90% of the threshold (the creates alone), then from there until the snapshot is written.
const before = monitorEventLoopDelay({ resolution: 1 });
const during = monitorEventLoopDelay({ resolution: 1 });
let [longestTurn, startedAt, doneAt, writing] = [0, 0, 0, false];
before.enable();
for (let k = 0; k < n || (startedAt !== 0 && doneAt === 0); k += 10) {
  const started = performance.now();
  for (let j = 0; j < 10; j++) await store.insertPayment(payment());
  await turn();
  if (startedAt === 0 && statSync(`${dataFile}.log`).size > 0.9 * threshold) {
    startedAt = started;
    before.disable();
    during.enable();
  }
  if (startedAt !== 0) longestTurn = Math.max(longestTurn, performance.now() - started);
  // The open wrote the first snapshot: this one is done once it has been seen writing and no longer is.
  writing ||= store.snapshotting !== null;
  if (startedAt !== 0 && doneAt === 0 && writing && !store.snapshotting) {
    doneAt = performance.now();
    during.disable();
  }
}
const ms = (ns) => (ns / 1e6).toFixed(1);
console.log(`${n} payments, snapshot of ${(statSync(dataFile).size / 1e6).toFixed(1)} MB: written`);
console.log(`event-loop delay before, creates only: max ${ms(before.max)} ms, p99 ${ms(before.percentile(99))} ms`);
console.log(`event-loop delay from 90% of the threshold to the snapshot written: max ${ms(during.max)} ms, p99 ${ms(during.percentile(99))} ms; longest turn of 10 creates then ${longestTurn.toFixed(1)} ms`);
await store.close();
rmSync(dir, { recursive: true, force: true });
