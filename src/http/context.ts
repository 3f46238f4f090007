/** What every handler can reach through the Hono context. */
import type { Merchant } from '../domain/merchant.js';
import type { Services } from '../services/index.js';
import type { RequestRecord } from './request-record.js';

export type { Services };

export interface AppEnv {
  Variables: {
    services: Services;
    /** The merchant the request's key names (keyed routes, once authenticated). */
    merchant: Merchant;
    /** Everything the layers learn of this request, in one place (http/request-record.ts). */
    record: RequestRecord;
  };
}
