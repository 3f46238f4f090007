/**
 * The tables of the shared store, created and migrated at start under an advisory lock, so
 * instances that start together do not race. Each migration runs once, in order, in the same
 * transaction as the version it records. Documents are JSON text, not jsonb: jsonb reorders
 * object keys, and `metadata` is answered as it was sent.
 */
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
  // 2: the readiness report's evidence, kept beyond the journal's bound (a database of version 1 gets it empty).
  `
  CREATE TABLE payreq_readiness (
    id         bigserial PRIMARY KEY,
    payee_id   text NOT NULL,
    repeat_key text,
    entry      text NOT NULL
  );
  CREATE INDEX payreq_readiness_merchant ON payreq_readiness (payee_id, id);
  `,
  // 3: rate limits slide: the stamps of the requests passed within the window, and whether the last
  // request passed. slot and count (the fixed windows of version 2) stay, unused, for instances of
  // version 2 still running while one of version 3 starts.
  `
  ALTER TABLE payreq_rate_windows
    ADD COLUMN passed bigint[] NOT NULL DEFAULT '{}',
    ADD COLUMN admitted boolean NOT NULL DEFAULT true,
    ALTER COLUMN slot SET DEFAULT 0,
    ALTER COLUMN count SET DEFAULT 0;
  `,
  // 4: journal entry ids count per merchant (SPEC 18: another merchant's traffic must not show as gaps).
  // entry_id is the merchant's last id + 1, taken under a per-merchant advisory lock held to the
  // end of the inserting transaction, so across instances no two entries of a merchant share an id
  // and a later answer gets a larger one; erased entries (a clear, a reset) start it again at 1.
  // Set by a trigger, so instances of version 3 still running insert numbered rows too. Old rows
  // keep their sandbox-wide id, increasing per merchant as well.
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
  // 5: per merchant, the bytes of its payments' documents (SPEC 18), kept in the statement of
  // each change so that no create sums them; counted here once for the payments already stored.
  `
  CREATE TABLE payreq_storage (
    payee_id      text PRIMARY KEY,
    payment_bytes bigint NOT NULL DEFAULT 0
  );
  INSERT INTO payreq_storage (payee_id, payment_bytes)
    SELECT payee_id, sum(octet_length(doc)) FROM payreq_payments GROUP BY payee_id;
  `,
  // 6: API keys kept as their SHA-256 (hex), in the key table and in each merchant's document
  // (SPEC 18); instances of version 3 still running then fail on the renamed column rather than
  // store a plain key again. jsonb reorders the document's members, which nothing reads by order.
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
  // 7: which instance holds a merchant's `payreq-sandbox listen` stream (SPEC 22), renewed
  // while it is connected: the other instances leave that merchant's deliveries to it; and the
  // listener's answers that reached another instance, passed on to the one waiting for them.
  `
  CREATE TABLE payreq_listeners (
    payee_id text NOT NULL,
    instance_id text NOT NULL,
    until bigint NOT NULL,
    PRIMARY KEY (payee_id, instance_id)
  );
  -- A listener's answer that reached another instance than its stream's (behind a balancer), until that one takes it.
  CREATE TABLE payreq_listener_answers (
    delivery_id text NOT NULL,
    attempt integer NOT NULL,
    payee_id text NOT NULL,
    answer text NOT NULL,
    at bigint NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
  );
  `,
  // answers: a journal entry refers to an answer text kept once per merchant (a status read's
  // `<payment id>@<version>`) instead of copying it; each entry and piece of evidence carries the
  // bytes it counts (storage-quota.ts), worked out by the instance that wrote it. Rows of earlier
  // versions have none: they count the bytes of their text, as before.
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
  // A delivery carries the bytes it counts (storage-quota.ts deliveryBytes), as the journal and the
  // evidence do: written with it, and grown by each attempt. Rows of earlier versions: their text.
  `
  ALTER TABLE payreq_deliveries ADD COLUMN bytes integer;
  `,
  // 10: per merchant, how many payments it holds, kept beside their bytes by the same statements, so that the
  // payment cap's check reads one row instead of counting the merchant's payments (it still counts them near the cap).
  `
  -- And the scheduler's question (which merchants have due work) asked from the payments that fall due by the furthest
  -- merchant clock, not by a probe per merchant (10,000 merchants: ~100 ms a second).
  ALTER TABLE payreq_storage ADD COLUMN payment_count bigint NOT NULL DEFAULT 0;
  UPDATE payreq_storage s SET payment_count = (SELECT count(*) FROM payreq_payments p WHERE p.payee_id = s.payee_id);
  CREATE INDEX payreq_payments_due_at ON payreq_payments (due_at) WHERE due_at IS NOT NULL;
  CREATE INDEX payreq_payments_settle_at ON payreq_payments (settle_at) WHERE settle_at IS NOT NULL;
  CREATE INDEX payreq_merchants_clock ON payreq_merchants (clock_offset_ms);
  `,
  // 11: a merchant's payment bytes and count kept in several rows (slots, postgres-storage.ts), summed when read: a
  // change adds to one, so its concurrent creates lock different rows and their commits reach the disk together.
  // The merchant's one row becomes its slot 0, in a table of a new name: an instance of version 10 still running fails on
  // the name it knows instead of miscounting (it would take the merchant's rows for one): upgrade every instance together.
  `
  ALTER TABLE payreq_storage RENAME TO payreq_payment_counts;
  ALTER TABLE payreq_payment_counts ADD COLUMN slot smallint NOT NULL DEFAULT 0;
  ALTER TABLE payreq_payment_counts DROP CONSTRAINT payreq_storage_pkey, ADD CONSTRAINT payreq_payment_counts_pkey PRIMARY KEY (payee_id, slot);
  `,
];

/**
 * Brings the database to `target` (SCHEMA_VERSION; tests build older ones), each migration it
 * lacks in order, all in one transaction with the version; throws, changing nothing, when it is newer.
 */
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
