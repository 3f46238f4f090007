/**
 * The upkeep of this instance's `payreq-sandbox listen` streams (SPEC 22): the shared store is
 * told which merchants' listeners are here (renewed, so an instance that dies lets go within
 * LISTENER_HOLD_MS), and the streams of a merchant deleted meanwhile end.
 */
import { errorFields } from '../logger.js';
import type { Logger } from '../logger.js';
import type { DeliveryLog } from '../store/delivery-log.js';
import { StoreUnavailableError } from '../store/unavailable.js';
import type { MerchantService } from './merchants.js';
import type { WebhookListeners } from './webhook-stream.js';

/** How often an instance renews its hold of its listeners' merchants, and how long a hold lasts unrenewed (an instance that died). */
const LISTENER_RENEW_MS = 10_000;
const LISTENER_HOLD_MS = 30_000;

export class ListenerUpkeep {
  private readonly renewer: NodeJS.Timeout;
  /** Whether this instance held any merchant's listener at its last renewal (there are rows to renew or remove). */
  private held = false;
  private closed = false;

  constructor(
    private readonly listeners: () => WebhookListeners,
    private readonly log: DeliveryLog,
    private readonly merchants: MerchantService,
    private readonly logger: Logger,
  ) {
    this.renewer = setInterval(() => {
      this.hold();
      void this.endDeleted();
    }, LISTENER_RENEW_MS);
    this.renewer.unref();
  }

  /** Tells the store which merchants' listeners are here, so other instances leave their deliveries to this one. */
  hold(): void {
    const ids = [...this.listeners().merchants()];
    if (!this.log.holdListeners || (ids.length === 0 && !this.held) || this.closed) return;
    this.held = ids.length > 0;
    const now = this.merchants.realNow();
    this.log.holdListeners(ids, now, now + LISTENER_HOLD_MS).catch((err: unknown) => {
      if (!(err instanceof StoreUnavailableError)) this.logger.error(errorFields(err), 'webhook listeners not recorded');
    });
  }

  close(): void {
    this.closed = true;
    clearInterval(this.renewer);
  }

  /** The streams of a merchant deleted meanwhile end: its key answers 401 from then on. */
  private async endDeleted(): Promise<void> {
    for (const payeeId of this.listeners().merchants()) {
      const gone = await this.merchants.byId(payeeId).then((m) => m === undefined, () => false);
      if (gone) this.listeners().closeMerchant(payeeId);
    }
  }
}
