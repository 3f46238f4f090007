/** What every handler can reach through the Hono context. */
import type { Merchant } from '../domain/merchant.js';
import type { SandboxConfig } from '../services/config.js';
import type { MerchantService } from '../services/merchants.js';
import type { PaymentService } from '../services/payments.js';
import type { QrImageCache } from '../services/qr-images.js';
import type { Store } from '../store/store.js';

export interface Services {
  readonly config: SandboxConfig;
  readonly store: Store;
  readonly merchants: MerchantService;
  readonly payments: PaymentService;
  readonly qr: QrImageCache;
}

export interface AppEnv {
  Variables: {
    services: Services;
    merchant: Merchant;
    /** Warnings for the Sandbox-Warning header (unknown fields and the like). */
    warnings: string[];
  };
}
