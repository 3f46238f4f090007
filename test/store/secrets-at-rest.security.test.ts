/**
 * SPEC 18, secrets at rest: API keys are stored as their SHA-256 (shown once, at enrolment), and
 * `sign` values (a create's, tools/sign's input and answer) are masked before a journal entry is
 * written; the readiness evidence keeps only whether a create was signed. Proved on each store by
 * reading what it keeps: the files of the file store, the tables of PostgreSQL, the records of
 * the memory store. Old stores migrate: a file store with plain keys is rewritten at its first
 * start, a PostgreSQL database of the previous schema is migrated; their keys still work.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { apiKeyHash } from '../../src/domain/ids.js';
import { signBody } from '../../src/domain/signature.js';
import { createSandbox } from '../../src/index.js';
import type { Sandbox } from '../../src/index.js';
import { migrate, SCHEMA_VERSION } from '../../src/store/postgres-schema.js';
import { PostgresStore } from '../../src/store/postgres-store.js';
import { FileStore } from '../../src/store/file-store.js';
import { freshDatabase } from '../support/databases.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { DEMO_KEY, call, createBody, expectEnvelope } from '../support/http.js';
import { capturedLog, LEVEL } from '../support/log.js';

afterAll(removeTempDirs);

/** Every file of a file store, as one text. */
function filesText(dataFile: string): string {
  const dir = path.dirname(dataFile);
  return readdirSync(dir).map((f) => `${f}:\n${readFileSync(path.join(dir, f), 'latin1')}`).join('\n');
}

/** Every row of every table of the sandbox's database, as one text. */
async function tablesText(url: string): Promise<string> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const tables = await sql<{ tablename: string }[]>`SELECT tablename FROM pg_tables WHERE tablename LIKE 'payreq_%'`;
    const texts = await Promise.all(tables.map(({ tablename }) => sql.unsafe(`SELECT t::text AS row FROM ${tablename} t`).then((rows) => `${tablename}:\n${rows.map((r) => r.row).join('\n')}`)));
    return texts.join('\n');
  } finally {
    await sql.end();
  }
}

interface Kind {
  open(): Promise<Sandbox>;
  /** What the store keeps, read after the sandbox is closed (everything written). */
  atRest(sandbox: Sandbox): Promise<string>;
}

const KINDS: readonly [string, () => Promise<Kind>][] = [
  ['memory', async () => ({
    open: () => createSandbox({ store: 'memory', scheduler: false }),
    async atRest(sandbox) {
      const store = sandbox.services.store;
      const ids = await store.merchantIds();
      const held = await Promise.all(ids.map(async (id) => [await store.merchant(id), await store.journal.list(id, { limit: 500 }), await store.readiness.list(id)]));
      return JSON.stringify(held);
    },
  })],
  ['file', async () => {
    const dataFile = path.join(tempDir('payreq-secrets-'), 's.json');
    return { open: () => createSandbox({ store: 'file', dataFile, scheduler: false }), atRest: async () => filesText(dataFile) };
  }],
  ['PostgreSQL', async () => {
    const url = await freshDatabase();
    return { open: () => createSandbox({ store: 'postgres', url, scheduler: false }), atRest: () => tablesText(url) };
  }],
];

describe.each(KINDS)('secrets at rest (%s store)', (_name, kind) => {
  it('keeps no API key and no sign: only key hashes, and masked signs in the journal; keys still authenticate', async () => {
    const store = await kind();
    const sandbox = await store.open();
    let closed = false;
    try {
      const enrolled = await call(sandbox, 'POST', '/sandbox/v1/merchants', { key: null, body: { name: 'Signed Shop', require_signature: true } });
      expectEnvelope(enrolled, 200);
      const key = enrolled.body.api_key as string;
      const salt = enrolled.body.signing_salt as string;
      const payee = enrolled.body.payee_id as string;

      const body = createBody({ payee, merchant_ref_no: 'secret-1', sign_type: 'SHA512' });
      const sign = signBody(body, salt);
      expectEnvelope(await call(sandbox, 'POST', '/openapi/v1/payments/payment', { key, body: { ...body, sign } }), 200);
      const tool = await call(sandbox, 'POST', '/sandbox/v1/tools/sign', { key, body: { ...createBody({ payee, merchant_ref_no: 'secret-2' }), sign: 'f'.repeat(128) } });
      expectEnvelope(tool, 200);
      const toolSign = tool.body.sign as string;
      expectEnvelope(await call(sandbox, 'GET', '/sandbox/v1/merchant', { key: DEMO_KEY }), 200);
      expectEnvelope(await call(sandbox, 'GET', '/sandbox/v1/merchant', { key: `${key}x` }), 401);

      // The journal shows what it kept: masked, the last four characters left.
      const journal = await call(sandbox, 'GET', '/sandbox/v1/requests?limit=10', { key });
      expect(JSON.stringify(journal.body)).toContain(`***${sign.slice(-4)}`);

      await sandbox.close();
      closed = true;
      const kept = await store.atRest(sandbox);
      for (const secret of [key, DEMO_KEY, sign, 'f'.repeat(128), toolSign]) expect(kept).not.toContain(secret);
      // What was read is the store: the key's hash, the masked sign and the evidence of a signed create are in it.
      expect(kept).toContain(apiKeyHash(key));
      expect(kept).toContain(apiKeyHash(DEMO_KEY));
      expect(kept).toContain(`***${sign.slice(-4)}`);
      expect(kept).toMatch(/signed\W{1,8}true/);

      if (_name !== 'memory') {
        // Reopened, the keys still authenticate.
        const again = await store.open();
        try {
          expect((await call(again, 'GET', '/sandbox/v1/merchant', { key })).body.payee_id).toBe(payee);
          expectEnvelope(await call(again, 'GET', '/sandbox/v1/merchant', { key: DEMO_KEY }), 200);
        } finally {
          await again.close();
        }
      }
    } finally {
      if (!closed) await sandbox.close();
    }
  });
});

const PLAIN_KEYS = ['sk_sandbox_old_plain_key_in_the_snapshot', 'sk_sandbox_old_plain_key_in_the_log'];

function earlierMerchant(payeeId: string, apiKey: string): Record<string, unknown> {
  return {
    payeeId, name: payeeId, city: 'Singapore', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeys: [apiKey], signingSalt: 's',
    settings: { requireSignature: false, qrTtlSeconds: 900, autoSettle: true, rateLimitPerSecond: 0, inlineQrImage: false }, clockOffsetMs: 0, createdAt: 0,
  };
}

describe('a file store written with plain keys (an earlier version)', () => {
  it('is converted once (scripts/convert-data.js): no plain key left in the snapshot or the log; both keys still authenticate', async () => {
    const dataFile = path.join(tempDir('payreq-secrets-old-'), 's.json');
    // As an earlier version wrote them, by hand: a snapshot and a log segment, without checksums or end marker.
    writeFileSync(dataFile, JSON.stringify({ format: 'payreq-sandbox/1', walSegment: 0, merchants: [earlierMerchant('OLD-1', PLAIN_KEYS[0]!)], payments: [] }));
    writeFileSync(`${dataFile}.wal.0`, `${JSON.stringify({ t: 'merchant', v: earlierMerchant('OLD-2', PLAIN_KEYS[1]!) })}\n`);
    await expect(new FileStore({ dataFile }).open()).rejects.toThrow(/Convert it once with: node .*convert-data\.js/);

    const out = execFileSync(process.execPath, [fileURLToPath(new URL('../../scripts/convert-data.js', import.meta.url)), dataFile], { encoding: 'utf8' });
    for (const key of PLAIN_KEYS) expect(out).not.toContain(key);
    const store = new FileStore({ dataFile });
    await store.open();
    expect((await store.merchantByKey(PLAIN_KEYS[0]!))?.payeeId).toBe('OLD-1');
    expect((await store.merchantByKey(PLAIN_KEYS[1]!))?.payeeId).toBe('OLD-2');
    expect((await store.merchant('OLD-2'))?.apiKeyHashes).toEqual([apiKeyHash(PLAIN_KEYS[1]!)]);
    expect(await store.merchant('OLD-2')).not.toHaveProperty('apiKeys');
    await store.close();

    const sandbox = await createSandbox({ store: 'file', dataFile, scheduler: false });
    try {
      for (const [i, plain] of PLAIN_KEYS.entries()) expect((await call(sandbox, 'GET', '/sandbox/v1/merchant', { key: plain })).body.payee_id).toBe(`OLD-${i + 1}`);
      expectEnvelope(await call(sandbox, 'GET', '/sandbox/v1/merchant', { key: DEMO_KEY }), 200);
    } finally {
      await sandbox.close();
    }
    const storeText = readFileSync(dataFile, 'utf8') + readFileSync(`${dataFile}.log`, 'utf8');
    for (const plain of [...PLAIN_KEYS, DEMO_KEY]) expect(storeText).not.toContain(plain);
  });
});

describe('a PostgreSQL database of the previous schema version', () => {
  it('is migrated: its keys and merchant documents hold hashes, and the keys still authenticate', async () => {
    const url = await freshDatabase();
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    try {
      // Version 6 hashed the keys: the version before it, whatever came after.
      await migrate(admin, 'test', 5);
      for (const [i, plain] of PLAIN_KEYS.entries()) {
        const m = earlierMerchant(`OLD-${i + 1}`, plain);
        await admin`INSERT INTO payreq_merchants (payee_id, doc, auto_settle) VALUES (${m.payeeId as string}, ${JSON.stringify(m)}, true)`;
        await admin`INSERT INTO payreq_merchant_keys (api_key, payee_id) VALUES (${plain}, ${m.payeeId as string})`;
      }
    } finally {
      await admin.end();
    }
    expect(await tablesText(url)).toContain(PLAIN_KEYS[0]);

    const store = new PostgresStore({ url });
    try {
      await store.open();
      expect(await store.run((sql) => sql`SELECT version FROM payreq_schema`)).toEqual([{ version: SCHEMA_VERSION }]);
      expect((await store.merchantByKey(PLAIN_KEYS[0]!))?.payeeId).toBe('OLD-1');
      expect((await store.merchantByKey(PLAIN_KEYS[1]!))?.payeeId).toBe('OLD-2');
      const migrated = await store.merchant('OLD-1');
      expect(migrated?.apiKeyHashes).toEqual([apiKeyHash(PLAIN_KEYS[0]!)]);
      expect(migrated).not.toHaveProperty('apiKeys');
      expect(migrated?.name).toBe('OLD-1');
    } finally {
      await store.close();
    }
    const kept = await tablesText(url);
    for (const plain of PLAIN_KEYS) {
      expect(kept).not.toContain(plain);
      expect(kept).toContain(apiKeyHash(plain));
    }
  });
});
