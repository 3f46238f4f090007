/** What every handler can reach through the Hono context. */
import type { Merchant } from '../domain/merchant.js';
import type { SandboxConfig } from '../services/config.js';
import type { FaultRuleService } from '../services/fault-rules.js';
import type { RequestJournal } from '../services/journal.js';
import type { MerchantService } from '../services/merchants.js';
import type { RateLimiter } from '../services/rate-limiter.js';
import type { WebhookService } from '../services/webhooks.js';
import type { PaymentService } from '../services/payments.js';
import type { QrImageCache } from '../services/qr-images.js';
import type { Store } from '../store/store.js';

export interface Services {
  readonly config: SandboxConfig;
  readonly store: Store;
  readonly merchants: MerchantService;
  readonly payments: PaymentService;
  readonly qr: QrImageCache;
  readonly faultRules: FaultRuleService;
  readonly journal: RequestJournal;
  readonly rateLimiter: RateLimiter;
  readonly webhooks: WebhookService;
}

export interface AppEnv {
  Variables: {
    services: Services;
    merchant: Merchant;
    /** Warnings for the Sandbox-Warning header (unknown fields and the like). */
    warnings: string[];
    /** The body text as read by the handler, for the journal. */
    requestBody: string | undefined;
    /** The JSON text of the answer, for the journal. */
    responseBody: string | undefined;
    /** Set once the answer has waited for the store's pending write (http/durable.ts). */
    heldUntilWritten: boolean | undefined;
    /** The faults applied to this request, for the journal. */
    fault: string | undefined;
  };
}
