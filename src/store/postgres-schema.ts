/** The shared store's tables. Documents are JSON text, not jsonb: jsonb reorders keys, and `metadata` is answered as it was sent. */
import type postgres from 'postgres';

/** The schema this code reads and writes; a database with a newer one is refused. */
export const SCHEMA_VERSION = 11;

/** Key of the advisory lock held while migrating ('payreq' in ASCII). */
const MIGRATION_LOCK = 0x7061797265710000n;
/** First key of the per-merchant locks that number journal entries ('jrnl'); the two-key space is apart from MIGRATION_LOCK's. */
export const JOURNAL_ID_LOCK = 0x6a726e6c;

const MIGRATIONS: readonly string[] = [
  // 1: merchants, keys, payments, journal, webhook deliveries, idempotency keys, rate-limit windows.
  `
  CREATE TABLE payreq_merchants (
    payee_id        text PRIMARY KEY,
    doc             text NOT NULL,
    clock_offset_ms bigint NOT NULL DEFAULT 0,
    auto_settle     boolean NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE payreq_merchant_keys (
    api_key  text PRIMARY KEY,
    payee_id text NOT NULL REFERENCES payreq_merchants ON DELETE CASCADE
  );
  CREATE INDEX payreq_merchant_keys_payee ON payreq_merchant_keys (payee_id);
  CREATE TABLE payreq_payments (
    seq             bigserial NOT NULL,
    id              text PRIMARY KEY,
    payee_id        text NOT NULL,
    merchant_ref_no text NOT NULL,
    token           text NOT NULL,
    code            text NOT NULL,
    status          text NOT NULL,
    live            boolean NOT NULL,
    due_at          bigint,
    settle_at       bigint,
    created_at      bigint NOT NULL,
    version         integer NOT NULL,
    doc             text NOT NULL,
    CONSTRAINT payreq_payments_ref UNIQUE (payee_id, merchant_ref_no),
    CONSTRAINT payreq_payments_token UNIQUE (token),
    CONSTRAINT payreq_payments_code UNIQUE (code)
  );
  CREATE INDEX payreq_payments_newest ON payreq_payments (payee_id, seq DESC);
  CREATE INDEX payreq_payments_due ON payreq_payments (payee_id, due_at) WHERE due_at IS NOT NULL;
  CREATE INDEX payreq_payments_settle ON payreq_payments (payee_id, settle_at) WHERE settle_at IS NOT NULL;
  CREATE INDEX payreq_payments_live ON payreq_payments (payee_id) WHERE live;
  CREATE TABLE payreq_journal (
    id       bigserial PRIMARY KEY,
    payee_id text NOT NULL,
    entry    text NOT NULL
  );
  CREATE INDEX payreq_journal_newest ON payreq_journal (payee_id, id DESC);
  CREATE TABLE payreq_deliveries (
    seq             bigserial NOT NULL,
    id              text PRIMARY KEY,
    payee_id        text NOT NULL,
    doc             text NOT NULL,
    state           text NOT NULL,
    attempts        jsonb NOT NULL DEFAULT '[]',
    attempt         integer NOT NULL DEFAULT 0,
    next_attempt_at bigint,
    lease_until     bigint
  );
  CREATE INDEX payreq_deliveries_newest ON payreq_deliveries (payee_id, seq DESC);
  CREATE INDEX payreq_deliveries_due ON payreq_deliveries (next_attempt_at) WHERE state = 'pending';
  CREATE TABLE payreq_idempotency (
    seq         bigserial NOT NULL,
    payee_id    text NOT NULL,
    key         text NOT NULL,
    fingerprint text NOT NULL,
    created_at  bigint NOT NULL,
    lease_until bigint NOT NULL,
    code        integer,
    body        text,
    PRIMARY KEY (payee_id, key)
  );
  CREATE INDEX payreq_idempotency_oldest ON payreq_idempotency (payee_id, seq);
  CREATE TABLE payreq_rate_windows (
    key    text PRIMARY KEY,
    slot   bigint NOT NULL,
    count  integer NOT NULL
  );
  `,
  // 2: the readiness report's evidence, kept beyond the journal's bound.
  `
  CREATE TABLE payreq_readiness (
    id         bigserial PRIMARY KEY,
    payee_id   text NOT NULL,
    repeat_key text,
    entry      text NOT NULL
  );
  CREATE INDEX payreq_readiness_merchant ON payreq_readiness (payee_id, id);
  `,
  // 3: rate limits slide; slot and count stay, unused, for instances of version 2 still running.
  `
  ALTER TABLE payreq_rate_windows
    ADD COLUMN passed bigint[] NOT NULL DEFAULT '{}',
    ADD COLUMN admitted boolean NOT NULL DEFAULT true,
    ALTER COLUMN slot SET DEFAULT 0,
    ALTER COLUMN count SET DEFAULT 0;
  `,
  // 4: journal ids per merchant (SPEC 18: no gaps from others' traffic), by a trigger under a merchant lock so version 3 instances number rows too.
  `
  ALTER TABLE payreq_journal ADD COLUMN entry_id bigint;
  UPDATE payreq_journal SET entry_id = id;
  ALTER TABLE payreq_journal ALTER COLUMN entry_id SET NOT NULL;
  CREATE UNIQUE INDEX payreq_journal_entry ON payreq_journal (payee_id, entry_id);
  DROP INDEX payreq_journal_newest;
  CREATE FUNCTION payreq_journal_entry_id() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_advisory_xact_lock(${JOURNAL_ID_LOCK}, hashtext(NEW.payee_id));
    NEW.entry_id := coalesce((SELECT max(entry_id) FROM payreq_journal WHERE payee_id = NEW.payee_id), 0) + 1;
    RETURN NEW;
  END $$;
  CREATE TRIGGER payreq_journal_entry_id BEFORE INSERT ON payreq_journal FOR EACH ROW EXECUTE FUNCTION payreq_journal_entry_id();
  `,
  // 5: per merchant, its payments' bytes (SPEC 18), kept by each change's statement so that no create sums them.
  `
  CREATE TABLE payreq_storage (
    payee_id      text PRIMARY KEY,
    payment_bytes bigint NOT NULL DEFAULT 0
  );
  INSERT INTO payreq_storage (payee_id, payment_bytes)
    SELECT payee_id, sum(octet_length(doc)) FROM payreq_payments GROUP BY payee_id;
  `,
  // 6: API keys kept as their SHA-256 (SPEC 18); a version 3 instance still running fails on the renamed column instead of storing a plain key.
  `
  UPDATE payreq_merchant_keys SET api_key = encode(sha256(convert_to(api_key, 'UTF8')), 'hex');
  ALTER TABLE payreq_merchant_keys RENAME COLUMN api_key TO key_hash;
  UPDATE payreq_merchants SET doc = (
    (doc::jsonb - 'apiKeys') || jsonb_build_object('apiKeyHashes', (
      SELECT coalesce(jsonb_agg(encode(sha256(convert_to(k, 'UTF8')), 'hex') ORDER BY i), '[]'::jsonb)
      FROM jsonb_array_elements_text(doc::jsonb -> 'apiKeys') WITH ORDINALITY AS t(k, i)))
  )::text
  WHERE doc::jsonb ? 'apiKeys';
  `,
  // 7: which instance holds a merchant's listen stream (SPEC 22), and its answers that reached another instance.
  `
  CREATE TABLE payreq_listeners (
    payee_id text NOT NULL,
    instance_id text NOT NULL,
    until bigint NOT NULL,
    PRIMARY KEY (payee_id, instance_id)
  );
  CREATE TABLE payreq_listener_answers (
    delivery_id text NOT NULL,
    attempt integer NOT NULL,
    payee_id text NOT NULL,
    answer text NOT NULL,
    at bigint NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
  );
  `,
  // 8: answer texts kept once per merchant, not copied into each entry; entries and evidence carry the bytes they count (older rows: their text's).
  `
  CREATE TABLE payreq_answers (
    payee_id text NOT NULL,
    ref      text NOT NULL,
    -- The text as a JSON string: it may hold what a text column cannot (a NUL).
    body     text NOT NULL,
    bytes    integer NOT NULL,
    PRIMARY KEY (payee_id, ref)
  );
  ALTER TABLE payreq_journal ADD COLUMN answer_ref text, ADD COLUMN bytes integer;
  ALTER TABLE payreq_readiness ADD COLUMN bytes integer;
  `,
  // 9: a delivery carries the bytes it counts, grown by each attempt (older rows: their text's).
  `
  ALTER TABLE payreq_deliveries ADD COLUMN bytes integer;
  `,
  // 10: payment counts beside their bytes (the cap reads one row); due work found by the furthest clock, not a probe per merchant (~100 ms/s at 10,000).
  `
  ALTER TABLE payreq_storage ADD COLUMN payment_count bigint NOT NULL DEFAULT 0;
  UPDATE payreq_storage s SET payment_count = (SELECT count(*) FROM payreq_payments p WHERE p.payee_id = s.payee_id);
  CREATE INDEX payreq_payments_due_at ON payreq_payments (due_at) WHERE due_at IS NOT NULL;
  CREATE INDEX payreq_payments_settle_at ON payreq_payments (settle_at) WHERE settle_at IS NOT NULL;
  CREATE INDEX payreq_merchants_clock ON payreq_merchants (clock_offset_ms);
  `,
  // 11: payment counts in slots (postgres-storage.ts), renamed so a version 10 instance still running fails instead of miscounting.
  `
  ALTER TABLE payreq_storage RENAME TO payreq_payment_counts;
  ALTER TABLE payreq_payment_counts ADD COLUMN slot smallint NOT NULL DEFAULT 0;
  ALTER TABLE payreq_payment_counts DROP CONSTRAINT payreq_storage_pkey, ADD CONSTRAINT payreq_payment_counts_pkey PRIMARY KEY (payee_id, slot);
  `,
];

/** One transaction under an advisory lock, so instances starting together do not race; tests build older versions with `target`. */
export async function migrate(sql: postgres.Sql, shownUrl: string, target = SCHEMA_VERSION): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK.toString()}::bigint)`;
    await tx`CREATE TABLE IF NOT EXISTS payreq_schema (id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL)`;
    const [row] = await tx<{ version: number }[]>`SELECT version FROM payreq_schema WHERE id = 1`;
    const current = row?.version ?? 0;
    if (current > target) {
      throw new Error(
        `The database ${shownUrl} holds payreq-sandbox schema version ${current}, newer than this sandbox understands (${target}): ` +
          'run the newer sandbox version that wrote it, or point SANDBOX_STORE at another database.',
      );
    }
    for (let version = current + 1; version <= target; version++) await tx.unsafe(MIGRATIONS[version - 1]!);
    if (current < target) {
      await tx`INSERT INTO payreq_schema (id, version) VALUES (1, ${target}) ON CONFLICT (id) DO UPDATE SET version = excluded.version`;
    }
  });
}
