/**
 * The cost of a write through the file store's API, without HTTP: N creates one after the other
 * (each awaited, as one client does), then N more 100 at a time (as many clients do).
 *
 *   node bench/store-writes.js [dist folder, default ./dist] [N, default 20000]
 *
 * Pass another build's dist folder to compare (e.g. a worktree of an earlier commit).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const dist = path.resolve(process.argv[2] ?? 'dist');
const n = Number(process.argv[3] ?? 20_000);
const { FileStore } = await import(path.join(dist, 'store/file-store.js'));
const { newPayment } = await import(path.join(dist, 'domain/payment.js'));
const { newPaymentCode, newPaymentId, newPaymentToken } = await import(path.join(dist, 'domain/ids.js'));
const { DEFAULT_SETTINGS } = await import(path.join(dist, 'domain/merchant.js'));

const dir = mkdtempSync(path.join(tmpdir(), 'payreq-writes-'));
const store = new FileStore({ dataFile: path.join(dir, 's.json') });
await store.open();
await store.saveMerchant({ payeeId: 'M1', name: 'M1', city: 'Singapore', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeyHashes: ['k1'], signingSalt: 's', settings: DEFAULT_SETTINGS, clockOffsetMs: 0, createdAt: 0 });
let i = 0;
const payment = () => newPayment({ id: newPaymentId(), token: newPaymentToken(), code: newPaymentCode(), payeeId: 'M1', merchantRefNo: `ref-${i++}`, productType: 'QR_DYNAMIC', currency: 'SGD', amountMinor: 1050, now: Date.now(), ttlMs: 900_000 });

let started = performance.now();
for (let k = 0; k < n; k++) await store.insertPayment(payment());
const one = performance.now() - started;
started = performance.now();
for (let k = 0; k < n; k += 100) await Promise.all(Array.from({ length: 100 }, () => store.insertPayment(payment())));
const many = performance.now() - started;
await store.close();
rmSync(dir, { recursive: true, force: true });
const line = (label, ms) => `${label}: ${Math.round((n / ms) * 1000)} creates/s, ${((ms * 1000) / n).toFixed(1)} µs each`;
console.log(`${dist} (${n} creates each way)\n  ${line('one at a time ', one)}\n  ${line('100 at a time  ', many)}`);
