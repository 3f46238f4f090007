/**
 * The batch-per-turn writer of the PostgreSQL store, written once: the journal entries and the
 * readiness evidence added in one event-loop turn go to the database in one statement (one round
 * trip), committed without waiting for the disk (synchronous_commit off for that transaction
 * only, set by the statement itself): both are records of requests, which a database crash may
 * cut short by its last moments, unlike payments. Each caller waits for its turn's write, so a
 * read through any instance after an answer shows it (SPEC 20).
 */
import type { Run } from './postgres-connection.js';
import type { TrimCounter } from './postgres-trims.js';

/** Each part's rows as JSON objects' text (`{"p":payee,"r":repeat,"e":entry}`), joined into one JSON array per part when written: no escaping per row. */
interface Turn {
  readonly journal: Rows;
  readonly evidence: Rows;
  readonly written: Promise<void>;
}

interface Rows {
  readonly texts: string[];
  readonly payees: string[];
}

export class PostgresTurnWriter {
  private turn: Turn | null = null;

  constructor(
    private readonly run: Run,
    /** Each part's trim counter, told of the rows written. */
    private readonly trims: { readonly journal: TrimCounter; readonly evidence: TrimCounter },
  ) {}

  /** Adds a journal entry (JSON text) to this turn's write; resolves once it is written. */
  journal(payeeId: string, entry: string): Promise<void> {
    const turn = this.current();
    turn.journal.texts.push(`{"p":${JSON.stringify(payeeId)},"e":${entry}}`);
    turn.journal.payees.push(payeeId);
    return turn.written;
  }

  /** Adds readiness evidence (JSON text, with its repeat key or null) to this turn's write. */
  evidence(payeeId: string, repeat: string | null, entry: string): Promise<void> {
    const turn = this.current();
    turn.evidence.texts.push(`{"p":${JSON.stringify(payeeId)},"r":${JSON.stringify(repeat)},"e":${entry}}`);
    turn.evidence.payees.push(payeeId);
    return turn.written;
  }

  private current(): Turn {
    if (this.turn) return this.turn;
    const journal: Rows = { texts: [], payees: [] };
    const evidence: Rows = { texts: [], payees: [] };
    const written = new Promise<void>((resolve, reject) => setImmediate(() => this.write(journal, evidence).then(resolve, reject)));
    return (this.turn = { journal, evidence, written });
  }

  private async write(journal: Rows, evidence: Rows): Promise<void> {
    this.turn = null;
    // Journal rows in the order of the merchants' locks (then as added), so two instances' turns never wait on each other in a
    // cycle (a trigger numbers them per merchant, postgres-schema.ts); set_config(..., true) holds until this statement's commit.
    await this.run(
      (sql) => sql`
        WITH j AS (
          INSERT INTO payreq_journal (payee_id, entry)
          SELECT r.v->>'p', (r.v->'e')::text FROM json_array_elements(${`[${journal.texts.join(',')}]`}::text::json) WITH ORDINALITY AS r(v, n)
          ORDER BY hashtext(r.v->>'p'), r.n
          RETURNING 1
        ), e AS (
          INSERT INTO payreq_readiness (payee_id, repeat_key, entry)
          SELECT r.v->>'p', r.v->>'r', (r.v->'e')::text FROM json_array_elements(${`[${evidence.texts.join(',')}]`}::text::json) WITH ORDINALITY AS r(v, n)
          ORDER BY r.n
          RETURNING 1
        )
        SELECT set_config('synchronous_commit', 'off', true)`,
    );
    for (const payeeId of journal.payees) this.trims.journal.note(payeeId);
    for (const payeeId of evidence.payees) this.trims.evidence.note(payeeId);
  }
}

