#!/usr/bin/env node
/**
 * Memory follows stored bytes (SPEC 18). Two measurements:
 *
 * - heap per payment against its stored bytes, for metadata of the adversarial shape
 *   `{"a":[{},{},…]}` (8,167 bytes) and of an ordinary one (50 keys, ~7.8 KB): payments put in a
 *   memory store, and read back by a file store at start (the crash-loop path); each in its own
 *   `node --expose-gc` child, heap measured after a full GC before and after;
 * - the RSS of a real server (`node dist/cli.js serve`, file store) filled with such payments by
 *   several merchants until the sandbox's budget refuses them, and after a restart on that data.
 *
 *   npm run bench -- --storage                    # both, budget 64 MB
 *   node --expose-gc bench/storage-memory.js heap adversarial memory 2000   # one heap figure, as JSON
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { killAllChildren, memoryOf, startServer } from './lib/processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);

/** The metadata texts of the two shapes, as a client sends them. */
export const SHAPES = {
  // 8,167 bytes: inside the 50-key and 8 KiB limits, ~180 KB of heap as a tree of objects.
  adversarial: `{"a":[${Array(2720).fill('{}').join(',')}]}`,
  // 50 keys of 150-character strings: ~7.8 KB.
  ordinary: JSON.stringify(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`key_${String(i).padStart(2, '0')}`, `value ${i} `.padEnd(145, 'x')]))),
};

/** Heap bytes per payment (after a full GC) and stored bytes per payment, for `count` payments of one shape. */
export async function heapPerPayment(shape, kind, count) {
  const { MemoryStore } = await import('../dist/store/memory-store.js');
  const { FileStore } = await import('../dist/store/file-store.js');
  const { newPayment } = await import('../dist/domain/payment.js');
  const { newPaymentCode, newPaymentId, newPaymentToken } = await import('../dist/domain/ids.js');
  const { DEFAULT_SETTINGS } = await import('../dist/domain/merchant.js');
  const text = SHAPES[shape];
  const merchant = { payeeId: 'M1', name: 'M1', city: 'Singapore', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeyHashes: ['k1'], signingSalt: 's', settings: DEFAULT_SETTINGS, clockOffsetMs: 0, createdAt: 0 };
  // As create makes it: parsed from the request, then kept as its own text ('tree' keeps the parsed object, as before SPEC 18).
  const payment = (i) => newPayment({
    id: newPaymentId(), token: newPaymentToken(), code: newPaymentCode(), payeeId: 'M1', merchantRefNo: `ref-${i}`, productType: 'QR_DYNAMIC',
    currency: 'SGD', amountMinor: 1050, metadata: kind === 'tree' ? JSON.parse(text) : JSON.stringify(JSON.parse(text)), now: Date.now(), ttlMs: 900_000,
  });
  const heap = () => {
    globalThis.gc();
    globalThis.gc();
    return process.memoryUsage().heapUsed;
  };
  let store;
  let before;
  if (kind === 'file-restart') {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'payreq-storage-'));
    const dataFile = path.join(dir, 's.json');
    const writer = new FileStore({ dataFile });
    await writer.open();
    await writer.saveMerchant(merchant);
    for (let i = 0; i < count; i++) await writer.insertPayment(payment(i));
    await writer.close();
    before = heap();
    store = new FileStore({ dataFile });
    await store.open();
    const after = heap();
    const stored = (await store.storageUsage('M1')).merchantBytes;
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    return { shape, kind, count, heapPerPayment: Math.round((after - before) / count), storedPerPayment: Math.round(stored / count) };
  }
  before = heap();
  store = new MemoryStore();
  await store.saveMerchant(merchant);
  for (let i = 0; i < count; i++) await store.insertPayment(payment(i));
  const after = heap();
  const stored = (await store.storageUsage('M1')).merchantBytes;
  return { shape, kind, count, heapPerPayment: Math.round((after - before) / count), storedPerPayment: Math.round(stored / count), payments: (await store.listPayments('M1', { limit: 0, offset: 0 })).total };
}

/** heapPerPayment in a `node --expose-gc` child of its own (a clean heap). */
export function measureHeap(shape, kind, count) {
  const out = execFileSync(process.execPath, ['--expose-gc', SELF, 'heap', shape, kind, String(count)], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return JSON.parse(out);
}

/**
 * A real server with a `budgetMb` budget, filled by `merchants` merchants with adversarial
 * metadata until creates answer 402 (at most `maxSeconds`); its RSS then, and after a restart.
 */
export async function rssAtBudget({ budgetMb = 64, merchants = 8, maxSeconds = 240, log = () => {} } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'payreq-storage-rss-'));
  const dataFile = path.join(dir, 's.json');
  const env = { SANDBOX_STORAGE_MB: String(budgetMb), SANDBOX_MERCHANT_STORAGE_MB: String(budgetMb), SANDBOX_LOG: 'off', SANDBOX_ENROLL_LIMIT: '0' };
  try {
    let server = await startServer({ dataFile, env });
    const keys = [];
    for (let i = 0; i < merchants; i++) {
      const res = await fetch(`${server.url}/sandbox/v1/merchants`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      const m = await res.json();
      keys.push({ key: m.api_key, payee: m.payee_id });
    }
    const until = Date.now() + maxSeconds * 1000;
    let created = 0;
    let full = false;
    const fill = async ({ key, payee }) => {
      while (!full && Date.now() < until) {
        const body = `{"payee":"${payee}","product_type":"QR_DYNAMIC","merchant_ref_no":"r-${created}-${Math.random().toString(36).slice(2)}","amount":10.5,"metadata":${SHAPES.adversarial}}`;
        const res = await fetch(`${server.url}/openapi/v1/payments/payment`, { method: 'POST', headers: { 'content-type': 'application/json', 'service-api-key': key }, body });
        await res.arrayBuffer();
        if (res.status === 402) full = true;
        else if (res.status === 200) created++;
        else throw new Error(`create answered ${res.status}`);
      }
    };
    await Promise.all(keys.map(fill));
    const filled = { created, full, ...memoryOf(server.pid) };
    log(`filled: ${created} payments, budget reached: ${full}, RSS ${filled.rssMB.toFixed(0)} MB (peak ${filled.peakMB.toFixed(0)} MB)`);
    await server.stop();
    server = await startServer({ dataFile, env });
    const restarted = memoryOf(server.pid);
    log(`restarted on that data: RSS ${restarted.rssMB.toFixed(0)} MB (peak ${restarted.peakMB.toFixed(0)} MB)`);
    await server.stop();
    return { budgetMb, merchants, filled, restarted };
  } finally {
    killAllChildren();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `npm run bench -- --storage`: the heap figures of both shapes, then the RSS at the budget. */
export async function storageBench({ budgetMb = 64, log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const heap = [];
  for (const shape of Object.keys(SHAPES)) {
    for (const kind of ['tree', 'memory', 'file-restart']) {
      const r = measureHeap(shape, kind, kind === 'tree' ? 500 : 2000);
      heap.push(r);
      log(`${shape.padEnd(12)} ${kind.padEnd(13)} heap ${String(r.heapPerPayment).padStart(7)} B/payment, stored ${r.storedPerPayment} B/payment (x${(r.heapPerPayment / r.storedPerPayment).toFixed(2)})`);
    }
  }
  const rss = await rssAtBudget({ budgetMb, log });
  return { heap, rss };
}

if (process.argv[2] === 'heap') {
  const [shape, kind, count] = process.argv.slice(3);
  process.stdout.write(JSON.stringify(await heapPerPayment(shape, kind, Number(count))));
}
