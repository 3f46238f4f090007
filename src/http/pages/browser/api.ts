/**
 * What the dashboard's script sends and reads, typed off the route contracts. Types only: nothing
 * here reaches the browser, and a contract change the script does not follow fails the typecheck.
 */
import type { z } from 'zod';
import type { PaymentRoutes } from '../../api/payments/payments.routes.js';
import type { JsonAnswer } from '../../contract/answers.js';
import type { RouteContract } from '../../contract/route.js';
import type * as catalogue from '../../sandbox/catalogue/catalogue.routes.js';
import type * as clock from '../../sandbox/clock/clock.routes.js';
import type * as control from '../../sandbox/control/control.routes.js';
import type * as faults from '../../sandbox/faults/faults.routes.js';
import type * as journal from '../../sandbox/journal/journal.routes.js';
import type * as merchants from '../../sandbox/merchants/merchants.routes.js';
import type * as readiness from '../../sandbox/readiness/readiness.routes.js';
import type * as webhook from '../../sandbox/webhook/webhook.routes.js';

/** The body of a route's 200 answer. */
type OkBody<R extends RouteContract> = R['responses'][200] extends JsonAnswer<infer S extends z.ZodType> ? z.output<S> : never;

/** The JSON body a route takes. */
type RequestBody<R extends RouteContract> = R extends { readonly request: { readonly body: { readonly schema: infer S extends z.ZodType } } } ? z.input<S> : never;

/** Every answer, done or refused: the envelope's code and a description that says what happened. */
export interface Envelope {
  readonly code: number;
  readonly description: string;
}

export type Clock = OkBody<typeof clock.read>;
export type AdvanceClock = RequestBody<typeof clock.advance>;

export type PaymentPage = OkBody<typeof control.list>;
export type SandboxPayment = PaymentPage['payments'][number];
export type PaymentStatus = SandboxPayment['payment_status'];
export type PaymentHistory = OkBody<typeof control.events>;
export type PaymentEvent = PaymentHistory['events'][number];

/** The control actions a payment row offers; each takes an optional body, and the row sends none of its fields. */
export type ControlAction = 'pickup' | 'pay' | 'fail' | 'expire' | 'settle';
export type ControlActionBody = RequestBody<(typeof control)[ControlAction]>;
/** The public transitions a row offers: both need a reason. */
export type PublicAction = 'cancel' | 'void';
export type PublicActionBody = RequestBody<PaymentRoutes[PublicAction]>;

export type Readiness = OkBody<typeof readiness.report>;
export type ReadinessCheck = Readiness['checks'][number];

export type Journal = OkBody<typeof journal.list>;
export type JournalEntry = Journal['requests'][number];

export type PaymentDetail = OkBody<typeof control.get>;
export type ActionOffer = PaymentDetail['actions'][number];
export type CreatePaymentBody = RequestBody<PaymentRoutes['create']>;

export type WebhookSettings = OkBody<typeof webhook.read>;
export type WebhookSet = OkBody<typeof webhook.set>;
export type WebhookSetBody = RequestBody<typeof webhook.set>;
export type WebhookRotated = OkBody<typeof webhook.rotateSecret>;
export type Deliveries = OkBody<typeof webhook.deliveries>;
export type Delivery = Deliveries['deliveries'][number];
export type DeliveryAnswer = OkBody<typeof webhook.replay>;

export type FaultRules = OkBody<typeof faults.list>;
export type FaultRule = FaultRules['rules'][number];
export type FaultRuleBody = RequestBody<typeof faults.add>;

export type Signed = OkBody<typeof catalogue.sign>;
export type OwnMerchant = OkBody<typeof merchants.ownMerchant>;
