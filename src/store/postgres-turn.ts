/** A turn's journal and evidence in one statement, not waiting for the disk: records of requests, which a database crash may cut short, unlike payments. */
import type { Run } from './postgres-connection.js';
import type { TrimCounter } from './postgres-trims.js';

/** Each part's rows as JSON objects' text (`{"p":payee,"r":repeat,"e":entry,"b":bytes}`), joined into one JSON array per part when written: no escaping per row. */
interface Turn {
  readonly journal: Rows;
  readonly evidence: Rows;
  /** Answer texts, once per merchant and name (keys: payee NUL ref). */
  readonly answers: Map<string, string>;
  readonly written: Promise<void>;
}

/** An answer text journal entries refer to, kept once per merchant: its name, its text and the bytes it counts. */
export interface AnswerText {
  readonly ref: string;
  readonly text: string;
  readonly bytes: number;
}

interface Rows {
  readonly texts: string[];
  readonly payees: string[];
  /** The bytes each row counts (storage-quota.ts), beside its payee. */
  readonly bytes: number[];
}

export class PostgresTurnWriter {
  private turn: Turn | null = null;

  constructor(
    private readonly run: Run,
    /** Each part's trim counter, told of the rows written. */
    private readonly trims: { readonly journal: TrimCounter; readonly evidence: TrimCounter; readonly bytes?: Pick<TrimCounter, 'note'> },
  ) {}

  /** Adds a journal entry (JSON text, of `bytes`; with the answer text it refers to, if any) to this turn's write; resolves once it is written. */
  journal(payeeId: string, entry: string, bytes: number, answer?: AnswerText): Promise<void> {
    const turn = this.current();
    const payee = JSON.stringify(payeeId);
    if (answer === undefined) turn.journal.texts.push(`{"p":${payee},${field('e', entry)},"b":${bytes}}`);
    else {
      const ref = JSON.stringify(answer.ref);
      turn.journal.texts.push(`{"p":${payee},${field('e', entry)},"b":${bytes},"a":${ref}}`);
      const key = `${payeeId}\0${answer.ref}`;
      // One row per name and statement: ON CONFLICT cannot meet a row its own statement inserted.
      if (!turn.answers.has(key)) turn.answers.set(key, `{"p":${payee},"a":${ref},${field('t', JSON.stringify(answer.text))},"b":${answer.bytes}}`);
    }
    turn.journal.payees.push(payeeId);
    turn.journal.bytes.push(bytes + (answer?.bytes ?? 0));
    return turn.written;
  }

  /** Adds readiness evidence (JSON text of `bytes`, with its repeat key or null) to this turn's write. */
  evidence(payeeId: string, repeat: string | null, entry: string, bytes: number): Promise<void> {
    const turn = this.current();
    turn.evidence.texts.push(`{"p":${JSON.stringify(payeeId)},"r":${JSON.stringify(repeat)},${field('e', entry)},"b":${bytes}}`);
    turn.evidence.payees.push(payeeId);
    turn.evidence.bytes.push(bytes);
    return turn.written;
  }

  private current(): Turn {
    if (this.turn) return this.turn;
    const journal: Rows = { texts: [], payees: [], bytes: [] };
    const evidence: Rows = { texts: [], payees: [], bytes: [] };
    const answers = new Map<string, string>();
    const written = new Promise<void>((resolve, reject) => setImmediate(() => this.write(journal, evidence, answers).then(resolve, reject)));
    return (this.turn = { journal, evidence, answers, written });
  }

  private async write(journal: Rows, evidence: Rows, answers: Map<string, string>): Promise<void> {
    this.turn = null;
    // Entries in merchant-lock order (no cycle between instances); texts after them, under those locks, which the journal trim takes.
    await this.run(
      (sql) => sql`
        WITH j AS (
          INSERT INTO payreq_journal (payee_id, entry, bytes, answer_ref)
          SELECT r.v->>'p', coalesce(r.v->>'E', (r.v->'e')::text), (r.v->>'b')::int, r.v->>'a' FROM json_array_elements(${`[${journal.texts.join(',')}]`}::text::json) WITH ORDINALITY AS r(v, n)
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
          SELECT r.v->>'p', r.v->>'r', coalesce(r.v->>'E', (r.v->'e')::text), (r.v->>'b')::int FROM json_array_elements(${`[${evidence.texts.join(',')}]`}::text::json) WITH ORDINALITY AS r(v, n)
          ORDER BY r.n
          RETURNING 1
        )
        SELECT set_config('synchronous_commit', 'off', true)`,
    );
    for (const payeeId of journal.payees) this.trims.journal.note(payeeId);
    for (const payeeId of evidence.payees) this.trims.evidence.note(payeeId);
    for (const rows of [journal, evidence]) rows.payees.forEach((payeeId, i) => this.trims.bytes?.note(payeeId, 1, rows.bytes[i]));
  }
}

/** JSON holding a NUL, which PostgreSQL's json refuses (failing the whole turn), goes as a string under the key in capitals, read back by ->>. */
function field(key: string, json: string): string {
  return json.includes('\\u0000') ? `"${key.toUpperCase()}":${JSON.stringify(json)}` : `"${key}":${json}`;
}
