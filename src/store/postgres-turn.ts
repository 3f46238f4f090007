/** A turn's journal and evidence in one statement, not waiting for the disk: records of requests, which a database crash may cut short, unlike payments. */
import type { Run } from './postgres-connection.js';
import type { TrimCounter } from './postgres-trims.js';

/** Each part's rows as JSON objects' text (`{"p":payee,"r":repeat,"e":entry,"b":bytes}`), joined into one JSON array per part when written: no escaping per row. */
interface Rows {
  readonly journal: string[];
  readonly evidence: string[];
  /** Answer texts, once per merchant and name (keys: payee NUL ref). */
  readonly answers: Map<string, string>;
  /** Each row's payee, its part's trim counter and the bytes it counts (storage-quota.ts), told once written. */
  readonly counted: { readonly payeeId: string; readonly part: TrimCounter; readonly bytes: number }[];
}

export class PostgresTurnWriter {
  private turn: (Rows & { readonly written: Promise<void> }) | null = null;

  constructor(
    private readonly run: Run,
    /** Each part's trim counter, told of the rows written. */
    private readonly trims: { readonly journal: TrimCounter; readonly evidence: TrimCounter; readonly bytes: Pick<TrimCounter, 'note'> },
  ) {}

  /** Adds a journal entry (JSON text, of `bytes`; with the answer text it refers to, if any, kept once per merchant and name) to this turn's write; resolves once it is written. */
  journal(payeeId: string, entry: string, bytes: number, answer?: { readonly ref: string; readonly text: string; readonly bytes: number }): Promise<void> {
    const turn = this.current();
    const payee = JSON.stringify(payeeId);
    if (answer === undefined) turn.journal.push(`{"p":${payee},${field('e', entry)},"b":${bytes}}`);
    else {
      const ref = JSON.stringify(answer.ref);
      turn.journal.push(`{"p":${payee},${field('e', entry)},"b":${bytes},"a":${ref}}`);
      const key = `${payeeId}\0${answer.ref}`;
      // One row per name and statement: ON CONFLICT cannot meet a row its own statement inserted.
      if (!turn.answers.has(key)) turn.answers.set(key, `{"p":${payee},"a":${ref},${field('t', JSON.stringify(answer.text))},"b":${answer.bytes}}`);
    }
    turn.counted.push({ payeeId, part: this.trims.journal, bytes: bytes + (answer?.bytes ?? 0) });
    return turn.written;
  }

  /** Adds readiness evidence (JSON text of `bytes`, with its repeat key or null) to this turn's write. */
  evidence(payeeId: string, repeat: string | null, entry: string, bytes: number): Promise<void> {
    const turn = this.current();
    turn.evidence.push(`{"p":${JSON.stringify(payeeId)},"r":${JSON.stringify(repeat)},${field('e', entry)},"b":${bytes}}`);
    turn.counted.push({ payeeId, part: this.trims.evidence, bytes });
    return turn.written;
  }

  private current(): Rows & { readonly written: Promise<void> } {
    if (this.turn) return this.turn;
    const rows: Rows = { journal: [], evidence: [], answers: new Map(), counted: [] };
    const written = new Promise<void>((resolve, reject) => setImmediate(() => this.write(rows).then(resolve, reject)));
    return (this.turn = { ...rows, written });
  }

  private async write({ journal, evidence, answers, counted }: Rows): Promise<void> {
    this.turn = null;
    // Entries in merchant-lock order (no cycle between instances); texts after them, under those locks, which the journal trim takes.
    await this.run(
      (sql) => sql`
        WITH j AS (
          INSERT INTO payreq_journal (payee_id, entry, bytes, answer_ref)
          SELECT r.v->>'p', coalesce(r.v->>'E', (r.v->'e')::text), (r.v->>'b')::int, r.v->>'a' FROM json_array_elements(${`[${journal.join(',')}]`}::text::json) WITH ORDINALITY AS r(v, n)
          ORDER BY hashtext(r.v->>'p'), r.n
          RETURNING 1
        ), a AS (
          INSERT INTO payreq_answers (payee_id, ref, body, bytes)
          SELECT r.v->>'p', r.v->>'a', coalesce(r.v->>'T', (r.v->'t')::text), (r.v->>'b')::int FROM json_array_elements(${`[${[...answers.values()].join(',')}]`}::text::json) AS r(v)
          WHERE (SELECT count(*) FROM j) >= 0
          ON CONFLICT (payee_id, ref) DO NOTHING
          RETURNING 1
        ), e AS (
          INSERT INTO payreq_readiness (payee_id, repeat_key, entry, bytes)
          SELECT r.v->>'p', r.v->>'r', coalesce(r.v->>'E', (r.v->'e')::text), (r.v->>'b')::int FROM json_array_elements(${`[${evidence.join(',')}]`}::text::json) WITH ORDINALITY AS r(v, n)
          ORDER BY r.n
          RETURNING 1
        )
        SELECT set_config('synchronous_commit', 'off', true)`,
    );
    for (const { payeeId, part, bytes } of counted) {
      part.note(payeeId);
      this.trims.bytes.note(payeeId, 1, bytes);
    }
  }
}

/** JSON holding a NUL, which PostgreSQL's json refuses (failing the whole turn), goes as a string under the key in capitals, read back by ->>. */
function field(key: string, json: string): string {
  return json.includes('\\u0000') ? `"${key.toUpperCase()}":${JSON.stringify(json)}` : `"${key}":${json}`;
}
