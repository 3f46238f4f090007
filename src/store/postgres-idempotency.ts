/** Idempotency keys of the PostgreSQL store: a retry may reach any instance, so the claim is a row. */
import type { IdempotencyBegin, IdempotencyKeys } from './idempotency-keys.js';
import { IDEMPOTENCY_ANSWER_CHARS_PER_MERCHANT, IDEMPOTENCY_KEYS_PER_MERCHANT, IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_TTL_MS, judgeKept } from './idempotency-keys.js';
import type { Run, Sql } from './postgres-connection.js';
import type { PostgresTrims, TrimCounter } from './postgres-trims.js';

/** Deletes the oldest keys beyond either bound, counted from the newest, as the in-process keys drop them. */
function trimIdempotency(sql: Sql, payeeId: string): Promise<unknown> {
  return sql`
    DELETE FROM payreq_idempotency WHERE payee_id = ${payeeId} AND seq IN (
      SELECT seq FROM (
        SELECT seq, row_number() OVER newest AS n, sum(coalesce(length(body), 0)) OVER newest AS chars
        FROM payreq_idempotency WHERE payee_id = ${payeeId} WINDOW newest AS (ORDER BY seq DESC)
      ) k WHERE n > ${IDEMPOTENCY_KEYS_PER_MERCHANT} OR chars > ${IDEMPOTENCY_ANSWER_CHARS_PER_MERCHANT})`;
}

export class PostgresIdempotencyKeys implements IdempotencyKeys {
  private readonly trims: TrimCounter;

  constructor(
    private readonly store: { run: Run },
    trims: PostgresTrims,
  ) {
    this.trims = trims.counter(trimIdempotency);
  }

  async begin(payeeId: string, key: string, fingerprint: string, now: number, realNow: number): Promise<IdempotencyBegin> {
    const verdict = await this.store.run(async (sql) => {
      // One statement claims a new, expired or abandoned key, so two instances never both start one.
      const claimed = await sql`
        INSERT INTO payreq_idempotency AS k (payee_id, key, fingerprint, created_at, lease_until)
        VALUES (${payeeId}, ${key}, ${fingerprint}, ${now}, ${realNow + IDEMPOTENCY_LEASE_MS})
        ON CONFLICT (payee_id, key) DO UPDATE
          SET fingerprint = excluded.fingerprint, created_at = excluded.created_at, lease_until = excluded.lease_until, code = NULL, body = NULL
          WHERE k.created_at <= ${now - IDEMPOTENCY_TTL_MS} OR (k.code IS NULL AND k.lease_until <= ${realNow})
        RETURNING 1`;
      if (claimed.count === 1) return { kind: 'started' } as const;
      const [kept] = await sql<Parameters<typeof judgeKept>[0][]>`
        SELECT fingerprint, created_at::float8 AS "createdAt", lease_until::float8 AS "leaseUntil",
               CASE WHEN code IS NOT NULL AND body IS NOT NULL THEN json_build_object('code', code, 'body', body) END AS answer
          FROM payreq_idempotency WHERE payee_id = ${payeeId} AND key = ${key}`;
      // Gone between the two statements (a reset): the retry runs as new.
      if (!kept) return { kind: 'in_progress' } as const;
      const judged = judgeKept(kept, fingerprint, now, realNow);
      // Claimable a moment ago but taken by another instance since: wait like any claim in progress.
      return judged === 'claim' ? ({ kind: 'in_progress' } as const) : judged;
    });
    if (verdict.kind === 'started') this.trims.note(payeeId);
    return verdict;
  }

  async finish(payeeId: string, key: string, code: number, body: string): Promise<void> {
    await this.store.run((sql) => sql`UPDATE payreq_idempotency SET code = ${code}, body = ${body} WHERE payee_id = ${payeeId} AND key = ${key} AND code IS NULL`);
    // An answer counts against the characters' bound: a large one makes the trim due sooner.
    this.trims.note(payeeId, Math.ceil((body.length / IDEMPOTENCY_ANSWER_CHARS_PER_MERCHANT) * IDEMPOTENCY_KEYS_PER_MERCHANT));
  }

  async forget(payeeId: string, key: string): Promise<void> {
    await this.store.run((sql) => sql`DELETE FROM payreq_idempotency WHERE payee_id = ${payeeId} AND key = ${key} AND code IS NULL`);
  }
}
