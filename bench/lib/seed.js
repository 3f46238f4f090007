/**
 * Seeds a file store directly: a snapshot (JSON lines, in the store's own record format)
 * holding the demo merchants and `count` payments shaped exactly as create stores them
 * (status P, within their time-to-live, as a load test leaves them), and an empty log after it.
 * No HTTP: ~1-2 s for 100k.
 *
 * CLI: node bench/lib/seed.js <file> <count>
 */
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = (p) => new URL(`../../dist/${p}`, import.meta.url).href;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Random text over `alphabet` from one pool of bytes (rejection sampling keeps it uniform). */
function randomTexts(alphabet, length, count) {
  const limit = 256 - (256 % alphabet.length);
  const out = new Array(count);
  let pool = randomBytes(length * count * 2);
  let at = 0;
  for (let n = 0; n < count; n++) {
    let s = '';
    while (s.length < length) {
      if (at >= pool.length) {
        pool = randomBytes(length * 1024);
        at = 0;
      }
      const b = pool[at++];
      if (b < limit) s += alphabet[b % alphabet.length];
    }
    out[n] = s;
  }
  return out;
}

/** The demo merchants exactly as the sandbox enrolls them on an empty store. */
async function demoMerchants() {
  const [{ createServices }, { defaultConfig }, { MemoryStore }] = await Promise.all([
    import(dist('services/index.js')),
    import(dist('services/config.js')),
    import(dist('store/memory-store.js')),
  ]);
  const services = createServices(new MemoryStore(), defaultConfig());
  return (await services.merchants.ensureDemoMerchants()).map((demo) => demo.merchant);
}

export const SEED_PAYEE = 'DEMO-MERCHANT-1';

/**
 * Writes the snapshot and answers the ids and tokens of the payments (for status and QR
 * workloads), and the merchants and payments themselves (the bench writes the same into
 * PostgreSQL). `now` is the real time the payments are created around; they stay live for the
 * default 15-minute time-to-live, longer than a bench run.
 */
export async function seedStore(file, count, { now = Date.now(), ttlMs = 15 * 60_000 } = {}) {
  const [{ FORMAT, line }, { newPayment }] = await Promise.all([
    import(dist('store/file-records.js')),
    import(dist('domain/payment.js')),
  ]);
  const merchants = await demoMerchants();
  const ids = randomTexts(BASE62, 22, count).map((s) => `pay_${s}`);
  const codes = randomTexts(CODE_ALPHABET, 12, count);
  const tokenBytes = randomBytes(24 * count);
  const payments = new Array(count);
  const tokens = new Array(count);
  for (let i = 0; i < count; i++) {
    const createdAt = now - 60_000 + Math.floor((i * 60_000) / Math.max(count, 1));
    const amountMinor = 100 + (i % 99_900);
    tokens[i] = `ptok_${tokenBytes.subarray(i * 24, i * 24 + 24).toString('base64url')}`;
    payments[i] = newPayment({
      id: ids[i],
      token: tokens[i],
      code: codes[i],
      payeeId: SEED_PAYEE,
      merchantRefNo: `seed-${i}`,
      productType: 'QR_DYNAMIC',
      currency: 'SGD',
      amountMinor,
      now: createdAt,
      ttlMs,
    });
  }
  mkdirSync(path.dirname(file), { recursive: true });
  // The layout a running sandbox leaves: the snapshot's records between its header and end lines, and the log after it.
  const records = [...merchants.map((v) => ({ t: 'merchant', v })), ...payments.map((v) => ({ t: 'payment', v }))];
  const fd = openSync(file, 'w');
  writeSync(fd, line({ t: 'snapshot', format: FORMAT, generation: 1 }));
  for (let i = 0; i < records.length; i += 1000) writeSync(fd, records.slice(i, i + 1000).map(line).join(''));
  writeSync(fd, line({ t: 'end', records: records.length }));
  closeSync(fd);
  writeFileSync(`${file}.log`, line({ t: 'log', format: FORMAT, generation: 1 }));
  return { ids, tokens, merchants, payments };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const [file, count] = process.argv.slice(2);
  if (!file || !(Number(count) >= 0)) {
    console.error('usage: node bench/lib/seed.js <file> <count>');
    process.exit(2);
  }
  const started = performance.now();
  await seedStore(file, Number(count));
  console.log(`seeded ${count} payments into ${file} in ${Math.round(performance.now() - started)} ms`);
}
