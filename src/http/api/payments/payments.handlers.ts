/** The public API's handlers: each reads its input through its contract (payments.routes.ts). */
import { Code } from '../../../domain/codes.js';
import { faultAfterCommit, MAGIC_AMOUNTS } from '../../../domain/magic.js';
import { toMinorUnits } from '../../../domain/money.js';
import { isOpen, STATUS_MEANINGS } from '../../../domain/payment.js';
import { baseUrlOf } from '../../base-url.js';
import { validate } from '../../body.js';
import type { AppEnv } from '../../context.js';
import { bodyOf, rawBodyOf } from '../../contract/input.js';
import type { RouteHandler } from '../../contract/route.js';
import { ok, sendText } from '../../envelope.js';
import { toJsonText } from '../../json-text.js';
import { answerAfterCommit, noteFault, takeHeldPlace } from '../../faults.js';
import { tellAnswered } from '../../answered.js';
import { keyedOf } from '../../middleware/auth.js';
import { metadataView, paymentStatusFields, qrData } from '../../views.js';
import type { PaymentRoutes } from './payments.routes.js';
import type { StatusTexts } from './status-texts.js';

type Handlers = { readonly [K in keyof PaymentRoutes]: RouteHandler<PaymentRoutes[K], AppEnv> };

export function paymentHandlers(routes: PaymentRoutes, statusTexts: StatusTexts): Handlers {

  return {
    async create(c) {
      const body = await rawBodyOf(c, routes.create);
      const input = validate(c, routes.create.request.body.schema, body);
      const { payments, qr, config } = c.get('services');
      const merchant = c.get('merchant');
      const amountMinor = toMinorUnits(input.amount)!;
      const magic = MAGIC_AMOUNTS[amountMinor];
      // The magic timeout holds its answer like a timeout fault: it takes a held place before anything commits.
      let place = magic?.fault === 'timeout' ? await takeHeldPlace(c, config.timeoutHoldMs) : undefined;
      const magicFault = magic && `${magic.fault} (magic amount ${input.amount})`;
      // One that acts after the commit is noted once the create commits: a refused one never meets it.
      if (magicFault && faultAfterCommit(amountMinor) === null) noteFault(c, magicFault);
      try {
        const { payment, fault } = await payments.create(merchant, {
          body,
          payee: input.payee,
          productType: input.product_type,
          merchantRefNo: input.merchant_ref_no,
          amountMinor,
          currency: input.currency_code ?? undefined,
          payer: input.payer ?? undefined,
          metadata: input.metadata ?? undefined,
          signType: input.sign_type ?? undefined,
          sign: input.sign ?? undefined,
        });
        if (magicFault && fault) noteFault(c, magicFault);
        tellAnswered(c, { paymentId: payment.id, merchantRefNo: input.merchant_ref_no, amount: input.amount, signed: typeof input.sign === 'string' });
        const qrFields = qrData(payment, merchant, baseUrlOf(c));
        if (merchant.settings.inlineQrImage) qrFields.image = await qr.dataUrl(payment.token, qrFields.payload as string);
        // A magic payer decides the payment at once: no one is left to scan its QR.
        const next = isOpen(payment) ? 'show qr_data to the payer' : 'the magic payer decided it at once, so no payer needs its qr_data';
        const response = ok(c, `Payment created with status ${payment.status} (${STATUS_MEANINGS[payment.status]}); ${next}.`, {
          payment_id: payment.id,
          payment_code: payment.code,
          payment_token: payment.token,
          qr_data: qrFields,
          metadata: metadataView(payment),
        });
        if (fault) {
          // Held or dropped once the answer is kept (the Idempotency-Key) and journaled: the place goes with it.
          answerAfterCommit(c, [{ kind: fault }], place);
          place = undefined;
        }
        return response;
      } finally {
        place?.release();
      }
    },

    async assign(c) {
      const { payer } = await bodyOf(c, routes.assign);
      const p = await c.get('services').payments.assign(c.get('merchant'), c.req.param('payment_id'), payer);
      return ok(c, `Payer ${JSON.stringify(payer)} assigned; payment ${p.id} is now ${p.status} (${STATUS_MEANINGS[p.status]}).`);
    },

    async cancel(c) {
      const { reason } = await bodyOf(c, routes.cancel);
      const p = await c.get('services').payments.cancel(c.get('merchant'), c.req.param('payment_id'), reason);
      return ok(c, `Payment ${p.id} cancelled before payment; it is now V (voided).`);
    },

    async void(c) {
      const { reason } = await bodyOf(c, routes.void);
      const p = await c.get('services').payments.void(c.get('merchant'), c.req.param('payment_id'), reason);
      return ok(c, `Payment ${p.id} voided before settlement; it is now V (voided).`);
    },

    async status(c) {
      const merchant = c.get('merchant');
      const id = c.req.param('payment_id');
      // The payment as read with the key (auth.ts) for this id; read again where a fault may apply (a latency may have let it change).
      const read = keyedOf(c)?.read;
      const faultable = c.req.header('sandbox-fault') !== undefined || (merchant.faultRules?.length ?? 0) > 0;
      const p = await c.get('services').payments.get(merchant, id, read?.id === id && !faultable ? read : undefined);
      tellAnswered(c, { paymentId: p.id, paymentStatus: p.status });
      const text = statusTexts.text(p, () => {
        const settled = p.status === 'A' && p.settled ? ' and settled' : '';
        return toJsonText({ code: Code.OK, description: `Payment ${p.id} is ${p.status} (${STATUS_MEANINGS[p.status]}${settled}).`, ...paymentStatusFields(p, merchant) });
      });
      // The journal keeps this text once for every read of this version, not once per read.
      return sendText(c, Code.OK, text, {}, `${p.id}@${p.version}`);
    },
  };
}
