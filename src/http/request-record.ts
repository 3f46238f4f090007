/**
 * One record per request, as WireMock's ServeEvent: made once at arrival (its id, method, path
 * and start), completed once when the answer is known (middleware/complete.ts), then only read,
 * by the journal entry, the readiness evidence, the log line and the metrics. The layers that
 * learn something of the request keep it in context variables of their own (body.ts,
 * envelope.ts, faults.ts, answered.ts, warnings.ts, middleware/auth.ts); none writes here.
 */
import type { Context } from 'hono';
import { Code } from '../domain/codes.js';
import { newRequestId } from '../domain/ids.js';
import type { Merchant } from '../domain/merchant.js';
import type { AnsweredFacts } from '../domain/readiness.js';
import { answeredOf } from './answered.js';
import type { AppEnv } from './context.js';
import { send } from './envelope.js';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The HTTP status; `held` for an answer a timeout fault holds back, `dropped` for a connection a drop fault cuts. */
export type AnswerStatus = number | 'held' | 'dropped';

/** What the request was answered, as every reader of the record sees it. */
export interface CompletedAnswer {
  readonly status: AnswerStatus;
  /** From arrival to the answer being known (a held answer's hold is not in it), to 0.1 ms. */
  readonly latencyMs: number;
  /** The route pattern that answered (never the raw path), or `unmatched`. */
  readonly route: string;
  /** The body as the handler read it; null when none was read. */
  readonly requestBody: string | null;
  /** The envelope answered; null for another answer (a page, an image) or a cut connection. */
  readonly responseBody: string | null;
  /** Names the answer when it is a status text (`<payment id>@<version>`): the journal refers to it. */
  readonly answerRef: string | undefined;
  /** What the handler said of a create or a status read. */
  readonly answered: AnsweredFacts | null;
  /** The faults applied, as the journal shows them. */
  readonly fault: string | null;
  readonly warnings: readonly string[];
  /** The merchant whose key let the request in (the keyed layer): its journal keeps the request. */
  readonly keyedBy: Merchant | undefined;
  /** The merchant the request acted for, for the log line (an enrolment's new one too). */
  readonly payeeId: string | null;
}

export class RequestRecord {
  /** When the request arrived (performance.now()). */
  readonly startedAt = performance.now();
  /** Names this request in the Request-Id header, the log line and the journal: the client's when it is a sane one. */
  readonly id: string;
  private completed: CompletedAnswer | undefined;

  constructor(
    sentId: string | undefined,
    readonly method: string,
    readonly path: string,
  ) {
    this.id = sentId !== undefined && CLIENT_REQUEST_ID.test(sentId) ? sentId : newRequestId();
  }

  /** Milliseconds since arrival, to 0.1 ms: a completed answer's latency. */
  sinceArrivalMs(): number {
    return Math.round((performance.now() - this.startedAt) * 10) / 10;
  }

  /** Completes the record with its answer, once: the pipeline knows its answer once. */
  complete(answer: CompletedAnswer): CompletedAnswer {
    if (this.completed) throw new Error(`request ${this.id} was completed twice`);
    return (this.completed = answer);
  }

  /** The answer, once completed. */
  get answer(): CompletedAnswer | undefined {
    return this.completed;
  }

  private written: Promise<void> | undefined;

  /** The answer says nothing the store holds (GET /livez): it waits for no write. */
  needsNoWrite(): void {
    this.written ??= Promise.resolve();
  }

  /**
   * No answer leaves before the changes it may have read are written (the file store commits in
   * groups): those of its one payment for a create or a status read, else any pending. The wait is made once, by whichever part asks first (an Idempotency-Key keeping its
   * answer, a held fault, the end of the request): a later wait would be for a newer batch, one
   * this answer never read. When that write fails, its changes are undone, so the answer (which
   * may show them) becomes a 500 that says so.
   */
  untilWritten(c: Context<AppEnv>): Promise<void> {
    return (this.written ??= this.waitForWrite(c));
  }

  private async waitForWrite(c: Context<AppEnv>): Promise<void> {
    const { store } = c.get('services');
    // A create or a status read shows its one payment: it waits for that payment's write alone.
    const shown = answeredOf(c)?.paymentId;
    const pending = shown === undefined ? store.pendingWrites() : store.pendingWriteOf(shown);
    if (!pending) return;
    try {
      await pending;
    } catch {
      // Hono's setter copies the old answer's headers onto a new one (Idempotent-Replayed, Location...): the 500 is alone.
      c.res = undefined;
      c.res = send(c, {
        code: Code.INTERNAL,
        description: 'The sandbox could not write its data file, so the changes made at the same moment were undone and this answer may not hold: retry the request.',
      });
    }
  }
}
