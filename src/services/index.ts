/** Wires the services of one sandbox instance. */
import type { Services } from '../http/context.js';
import type { Store } from '../store/store.js';
import { SandboxClock } from './clock.js';
import type { Clock } from './clock.js';
import type { SandboxConfig } from './config.js';
import { MerchantService } from './merchants.js';
import { PaymentService } from './payments.js';
import { QrImageCache } from './qr-images.js';

export function createServices(store: Store, config: SandboxConfig, clock?: Clock): Services {
  const sandboxClock = new SandboxClock(clock);
  const merchants = new MerchantService(store, sandboxClock, config);
  const payments = new PaymentService(store, merchants, config);
  return { config, store, merchants, payments, qr: new QrImageCache() };
}

/** Runs expiries, delayed payers and settlement cut-offs while nobody calls the API. */
export function startScheduler(services: Services, everyMs = 1000): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      for (const payeeId of await services.store.merchantIds()) {
        const merchant = await services.store.merchant(payeeId);
        if (merchant) await services.payments.runDue(merchant);
      }
    } catch (err) {
      console.error('scheduler tick failed:', err instanceof Error ? err.message : err);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
