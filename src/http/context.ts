/** What every handler can reach through the Hono context. */
import type { Merchant } from '../domain/merchant.js';
import type { Services } from '../services/index.js';
import type { AnsweredVariables } from './answered.js';
import type { BodyVariables } from './body.js';
import type { EnvelopeVariables } from './envelope.js';
import type { FaultVariables } from './faults.js';
import type { KeyedVariables } from './middleware/auth.js';
import type { RequestRecord } from './request-record.js';
import type { WarningVariables } from './warnings.js';

export type { Services };

/**
 * The app's own variables, and each layer's: a layer sets its own and exports the reader
 * (as Hono's `timing` does), and the record is completed from those readers.
 */
export interface AppEnv {
  Variables: {
    services: Services;
    /** The merchant the request acts for (keyed routes once authenticated; an enrolment's new one). */
    merchant: Merchant;
    /** The request's record: made at arrival, completed once when answered (http/request-record.ts). */
    record: RequestRecord;
  } & AnsweredVariables &
    BodyVariables &
    EnvelopeVariables &
    FaultVariables &
    KeyedVariables &
    WarningVariables;
}
