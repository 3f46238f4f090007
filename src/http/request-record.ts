/**
 * One record per request, as WireMock's ServeEvent: made once at arrival (its id, method, path
 * and start), completed once when the answer is known (middleware/complete.ts), then only read,
 * by the journal entry, the readiness evidence, the log line and the metrics. The layers that
 * learn something of the request keep it in context variables of their own (body.ts,
 * envelope.ts, faults.ts, answered.ts, warnings.ts, middleware/auth.ts); none writes here.
 */
import { newRequestId } from '../domain/ids.js';
import type { Merchant } from '../domain/merchant.js';
import type { AnsweredFacts } from '../domain/readiness.js';

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
}

