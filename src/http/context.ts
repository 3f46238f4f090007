/** What every handler can reach through the Hono context. */
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import type { AnsweredFacts } from '../domain/readiness.js';
import type { Services } from '../services/index.js';

export type { Services };

export interface AppEnv {
  Variables: {
    services: Services;
    merchant: Merchant;
    /** A status read's payment, read with the key in one store call (auth.ts), for the handler. */
    keyedRead: { readonly id: string; readonly payment: Payment | undefined } | undefined;
    /** Warnings for the Sandbox-Warning header (unknown fields and the like). */
    warnings: string[];
    /** The body text as read by the handler, for the journal. */
    requestBody: string | undefined;
    /** The JSON text of the answer, for the journal. */
    responseBody: string | undefined;
    /** Set once the answer has waited for the store's pending write (http/durable.ts). */
    heldUntilWritten: boolean | undefined;
    /** When the request arrived (performance.now()), for the journal's latency and so its sent time. */
    startedAt: number | undefined;
    /** Names this request in the Request-Id header, the log line and the journal. */
    requestId: string;
    /** The body's text once read (http/body.ts). */
    bodyText: string | undefined;
    /** Keeps the answer as it stands as this request's idempotent answer: a committed-change fault calls it before spoiling the answer. */
    keepCommittedAnswer: (() => Promise<void>) | undefined;
    /** Journals this request at once as held (http/middleware/journal.ts): a timeout fault calls it once the change is committed. */
    journalHeld: (() => Promise<void>) | undefined;
    /** The faults applied to this request, for the journal. */
    fault: string | undefined;
    /** What a create or a status read answered: the readiness evidence takes it from here instead of parsing the bodies. */
    answered: AnsweredFacts | undefined;
  };
}
