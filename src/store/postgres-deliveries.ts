/** Webhook deliveries of the PostgreSQL store: written in the transaction of their change, claimed under a lease. */
import { randomUUID } from 'node:crypto';
import { DELIVERY_LOG_CAP, LISTENER_ONLY } from './delivery-log.js';
import type { AttemptOutcome, Delivery, DeliveryAttempt, DeliveryLog, DeliveryState, MerchantPlaces } from './delivery-log.js';
import { cannotBeStored, type Run, type Sql } from './postgres-connection.js';
import { keepNewest, type PostgresTrims, type TrimCounter } from './postgres-trims.js';
import { attemptBytes, deliveryBytes } from './storage-quota.js';

/** The largest PostgreSQL integer: a limit per merchant of "none". */
const MAX_INT4 = 2_147_483_647;

/** The oldest beyond the cap go, pending ones too: work stays bounded with the log. */
const trimDeliveries = (sql: Sql, payeeId: string) => keepNewest(sql, 'payreq_deliveries', 'seq', payeeId, DELIVERY_LOG_CAP);

interface DeliveryRow {
  id: string;
  doc: string;
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  attempt: number;
  next_attempt_at: string | null;
}

/** The columns a DeliveryRow is read from. */
const COLUMNS = 'id, doc, state, attempts, attempt, next_attempt_at';

/** The row's document holds the parts of a delivery that never change. */
function deliveryOf(row: DeliveryRow): Delivery {
  const doc = JSON.parse(row.doc) as Omit<Delivery, 'state' | 'attempts' | 'attempt' | 'nextAttemptAt'>;
  return { ...doc, state: row.state, attempts: row.attempts, attempt: row.attempt, nextAttemptAt: row.next_attempt_at === null ? null : Number(row.next_attempt_at) };
}

export class PostgresDeliveryLog implements DeliveryLog {
  private readonly trims: TrimCounter;
  /** This process among the instances, in payreq_listeners. */
  private readonly instanceId = randomUUID();

  constructor(
    private readonly store: { run: Run },
    trims: PostgresTrims,
    /** Told of the bytes written, for the trims by bytes (postgres-room.ts). */
    private readonly bytes: Pick<TrimCounter, 'note'>,
  ) {
    this.trims = trims.counter(trimDeliveries);
  }

  /** Writes new deliveries inside the transaction of the change that caused them. */
  async insert(tx: Sql, deliveries: readonly Delivery[]): Promise<void> {
    for (const d of deliveries) {
      const { state, attempts, attempt, nextAttemptAt, ...doc } = d;
      await tx`
        INSERT INTO payreq_deliveries (id, payee_id, doc, state, attempts, attempt, next_attempt_at, bytes)
        VALUES (${d.id}, ${d.payeeId}, ${JSON.stringify(doc)}, ${state}, ${JSON.stringify(attempts)}::text::jsonb, ${attempt}, ${nextAttemptAt}, ${deliveryBytes(d)})`;
    }
    // Counted when written: a change that is rolled back only makes the trim come sooner.
    const payeeId = deliveries[0]?.payeeId;
    if (payeeId === undefined) return;
    this.trims.note(payeeId, deliveries.length);
    this.bytes.note(payeeId, deliveries.length, deliveries.reduce((sum, d) => sum + deliveryBytes(d), 0));
  }

  async record(deliveries: readonly Delivery[]): Promise<void> {
    await this.store.run((sql) => sql.begin((tx) => this.insert(tx, deliveries)));
  }

  list(payeeId: string, limit: number): Promise<readonly Delivery[]> {
    return this.store.run(async (sql) =>
      (
        await sql<DeliveryRow[]>`
          SELECT ${sql.unsafe(COLUMNS)} FROM payreq_deliveries
           WHERE payee_id = ${payeeId} ORDER BY seq DESC LIMIT ${Math.min(limit, DELIVERY_LOG_CAP)}`
      ).map(deliveryOf),
    );
  }

  get(payeeId: string, id: string): Promise<Delivery | undefined> {
    if (cannotBeStored(id)) return Promise.resolve(undefined);
    return this.store.run(async (sql) => {
      const [row] = await sql<DeliveryRow[]>`
        SELECT ${sql.unsafe(COLUMNS)} FROM payreq_deliveries WHERE payee_id = ${payeeId} AND id = ${id}`;
      return row ? deliveryOf(row) : undefined;
    });
  }

  /** In turn as inTurn (delivery-log.ts); SKIP LOCKED in the outer query (a window cannot carry FOR UPDATE), so instances never share a claim. */
  claimDue(now: number, leaseMs: number, max: number, places: MerchantPlaces): Promise<readonly Delivery[]> {
    const perMerchant = Math.min(places.perMerchant, MAX_INT4);
    const busy = [...places.inFlight].filter(([, n]) => n > 0);
    const listening = [...(places.listening ?? [])];
    return this.store.run(async (sql) =>
      (
        await sql<DeliveryRow[]>`
          UPDATE payreq_deliveries SET lease_until = ${now + leaseMs}
           WHERE id IN (
             SELECT d.id
               FROM payreq_deliveries d
               JOIN (SELECT id, row_number() OVER (PARTITION BY payee_id ORDER BY next_attempt_at, seq) + COALESCE(flying.n, 0) AS turn
                       FROM payreq_deliveries
                       LEFT JOIN jsonb_to_recordset(${sql.json(busy.map(([payee_id, n]) => ({ payee_id, n })))}) AS flying(payee_id text, n int) USING (payee_id)
                      WHERE state = 'pending' AND next_attempt_at <= ${now} AND (lease_until IS NULL OR lease_until <= ${now})
                        AND (payee_id IN (SELECT jsonb_array_elements_text(${sql.json(listening)}))
                             OR (doc::jsonb->>'url' <> ${LISTENER_ONLY} AND NOT EXISTS (
                                   SELECT 1 FROM payreq_listeners l
                                    WHERE l.payee_id = payreq_deliveries.payee_id AND l.instance_id <> ${this.instanceId} AND l.until > ${now})))) due
                 ON due.id = d.id
              WHERE due.turn <= ${perMerchant}::int
                AND d.state = 'pending' AND d.next_attempt_at <= ${now} AND (d.lease_until IS NULL OR d.lease_until <= ${now})
              ORDER BY due.turn, d.next_attempt_at, d.seq
              LIMIT ${max}
                FOR UPDATE OF d SKIP LOCKED)
          RETURNING ${sql.unsafe(COLUMNS)}`
      ).map(deliveryOf),
    );
  }

  async holdListeners(payeeIds: readonly string[], now: number, until: number): Promise<void> {
    const ids = [...payeeIds];
    await this.store.run((sql) =>
      sql.begin(async (tx) => {
        // Rows of instances that died without a word go once their time is past.
        await tx`DELETE FROM payreq_listeners WHERE (instance_id = ${this.instanceId} AND payee_id NOT IN (SELECT jsonb_array_elements_text(${tx.json(ids)}))) OR until <= ${now}`;
        if (ids.length === 0) return;
        await tx`
          INSERT INTO payreq_listeners (payee_id, instance_id, until)
          SELECT payee_id, ${this.instanceId}, ${until} FROM jsonb_array_elements_text(${tx.json(ids)}) AS t(payee_id)
          ON CONFLICT (payee_id, instance_id) DO UPDATE SET until = excluded.until`;
      }),
    );
  }

  passAnswer(payeeId: string, deliveryId: string, attempt: number, answer: string, now: number): Promise<boolean> {
    if (cannotBeStored(deliveryId) || cannotBeStored(answer)) return Promise.resolve(false);
    return this.store.run((sql) =>
      sql.begin(async (tx) => {
        // Answers nobody took within a minute are left over (their attempt ended as a timeout).
        await tx`DELETE FROM payreq_listener_answers WHERE at < ${now - 60_000}`;
        const [sending] = await tx`
          SELECT 1 FROM payreq_deliveries
           WHERE id = ${deliveryId} AND payee_id = ${payeeId} AND state = 'pending' AND attempt = ${attempt - 1} AND lease_until > ${now}`;
        if (!sending) return false;
        await tx`
          INSERT INTO payreq_listener_answers (delivery_id, attempt, payee_id, answer, at) VALUES (${deliveryId}, ${attempt}, ${payeeId}, ${answer}, ${now})
          ON CONFLICT (delivery_id, attempt) DO NOTHING`;
        return true;
      }),
    ) as Promise<boolean>;
  }

  takeAnswers(attempts: readonly { readonly deliveryId: string; readonly attempt: number }[]): Promise<readonly { deliveryId: string; attempt: number; payeeId: string; answer: string }[]> {
    if (attempts.length === 0) return Promise.resolve([]);
    return this.store.run((sql) => sql<{ deliveryId: string; attempt: number; payeeId: string; answer: string }[]>`
      DELETE FROM payreq_listener_answers
       WHERE (delivery_id, attempt) IN (SELECT * FROM jsonb_to_recordset(${sql.json(attempts)}) AS t("deliveryId" text, attempt int))
      RETURNING delivery_id AS "deliveryId", attempt, payee_id AS "payeeId", answer`);
  }

  async recordAttempt(id: string, attempt: DeliveryAttempt, next: AttemptOutcome): Promise<void> {
    await this.store.run(
      (sql) => sql`
        UPDATE payreq_deliveries
           SET attempts = attempts || ${JSON.stringify([attempt])}::text::jsonb, bytes = bytes + ${attemptBytes(attempt)}, state = ${next.state}, attempt = ${next.attempt},
               next_attempt_at = ${next.nextAttemptAt}, lease_until = NULL
         WHERE id = ${id} AND state = 'pending'`,
    );
  }

  resend(payeeId: string, id: string, now: number): Promise<Delivery | 'pending' | undefined> {
    if (cannotBeStored(id)) return Promise.resolve(undefined);
    return this.store.run((sql) =>
      sql.begin(async (tx) => {
        const [row] = await tx<DeliveryRow[]>`
          SELECT ${tx.unsafe(COLUMNS)} FROM payreq_deliveries WHERE payee_id = ${payeeId} AND id = ${id} FOR UPDATE`;
        if (!row) return undefined;
        if (row.state === 'pending') return 'pending' as const;
        const [again] = await tx<DeliveryRow[]>`
          UPDATE payreq_deliveries SET state = 'pending', attempt = 0, next_attempt_at = ${now}, lease_until = NULL WHERE id = ${id}
          RETURNING ${tx.unsafe(COLUMNS)}`;
        return deliveryOf(again!);
      }),
    ) as Promise<Delivery | 'pending' | undefined>;
  }

  /** As isHeld and released (delivery-log.ts), in one statement; a row leased for sending is left alone. */
  advanceHeld(payeeId: string, ms: number, writtenBy: number, now: number): Promise<readonly number[]> {
    return this.store.run(async (sql) => {
      const moved = await sql<{ next_attempt_at: string }[]>`
        UPDATE payreq_deliveries
           SET next_attempt_at = GREATEST(next_attempt_at - ${ms}, ${now} + (doc::jsonb->>'heldGapMs')::bigint)
         WHERE payee_id = ${payeeId} AND state = 'pending' AND attempt = 0 AND next_attempt_at > ${now}
           AND (lease_until IS NULL OR lease_until <= ${now})
           AND doc::jsonb->>'heldGapMs' IS NOT NULL AND (doc::jsonb->>'createdAt')::bigint <= ${writtenBy}
        RETURNING next_attempt_at`;
      return moved.map((row) => Number(row.next_attempt_at));
    });
  }
}
