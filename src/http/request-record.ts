/**
 * One record per request: what every layer learns of it (id, arrival, body, answer, faults,
 * warnings, what it answered), kept in one place. The journal entry, the readiness evidence, the
 * log line and the metrics are all made from it once the request is answered.
 */
import type { Context } from 'hono';
import { Code } from '../domain/codes.js';
import { newRequestId } from '../domain/ids.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import type { AnsweredFacts } from '../domain/readiness.js';
import type { AppEnv } from './context.js';
import { send } from './envelope.js';
import { journal } from './middleware/journal.js';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export class RequestRecord {
  /** When the request arrived (performance.now()): the journal's latency, the metrics' seconds. */
  readonly startedAt = performance.now();
  /** Names this request in the Request-Id header, the log line and the journal: the client's when it is a sane one. */
  readonly id: string;
  /** For the Sandbox-Warning header (unknown fields and the like). */
  readonly warnings: string[] = [];
  /** The body's text once read (http/body.ts), within the size limit. */
  bodyText: string | undefined;
  /** The body as the handler read it, for the journal: an oversized one is never read at all. */
  requestBody: string | undefined;
  /** The envelope's JSON text as answered, for the journal and the Idempotency-Key. */
  responseBody: string | undefined;
  /** Names the answer's text when it is a status text (`<payment id>@<version>`): the journal refers to it instead of copying it. */
  answerRef: string | undefined;
  /** What a create or a status read answered: the readiness evidence takes it from here instead of parsing the bodies. */
  answered: AnsweredFacts | undefined;
  /** The faults applied, as the journal shows them. */
  fault: string | undefined;
  /** A status read's payment, read with the key in one store call (the keyed layer), for the handler. */
  keyedRead: { readonly id: string; readonly payment: Payment | undefined } | undefined;
  /** Keeps the answer as it stands as the Idempotency-Key's answer: a committed-change fault calls it before spoiling the answer. */
  keepCommittedAnswer: (() => Promise<void>) | undefined;
  /** The merchant whose journal keeps this request (a keyed request, the journal on). */
  journalTo: Merchant | undefined;
  /** The request's one journal entry and evidence, once begun (journalOnce). */
  private journaling: Promise<void> | undefined;

  constructor(sentId: string | undefined) {
    this.id = sentId !== undefined && CLIENT_REQUEST_ID.test(sentId) ? sentId : newRequestId();
  }

  /**
   * Journals the request once, if its merchant's journal keeps it: as answered, or (`held`) at once
   * as held, which a timeout does once the change is committed (SPEC 19); a held answer's entry is
   * its one entry, never a second.
   */
  journalOnce(c: Context<AppEnv>, held: boolean): Promise<void> | undefined {
    return this.journalTo && (this.journaling ??= journal(c, this, this.journalTo, held));
  }

  /** Notes a fault applied to this request, after any noted before it. */
  noteFault(text: string): void {
    this.fault = this.fault ? `${this.fault}, ${text}` : text;
  }
}

