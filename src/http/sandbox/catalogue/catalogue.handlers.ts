/** Catalogue handlers: the codes, the magic values, the signature of a body. */
import { CODE_CATALOGUE } from '../../../domain/codes.js';
import { MAGIC_AMOUNTS, MAGIC_PAYERS } from '../../../domain/magic.js';
import { formatMinorUnits } from '../../../domain/money.js';
import { maskedStringToSign, signBody } from '../../../domain/signature.js';
import type { AppEnv } from '../../context.js';
import { rawBodyOf } from '../../contract/input.js';
import type { RouteHandler } from '../../contract/route.js';
import { ok } from '../../envelope.js';
import * as routes from './catalogue.routes.js';

export const codes: RouteHandler<typeof routes.codes, AppEnv> = (c) => ok(c, `The ${CODE_CATALOGUE.length} codes the sandbox answers.`, { codes: CODE_CATALOGUE });

export const magic: RouteHandler<typeof routes.magic, AppEnv> = (c) =>
  ok(c, 'Magic values: data that steers the outcome without a control call.', {
    payers: Object.entries(MAGIC_PAYERS).map(([value, effect]) => ({ field: 'payer', value, effect })),
    amounts: Object.entries(MAGIC_AMOUNTS).map(([minor, m]) => ({ field: 'amount', value: formatMinorUnits(Number(minor)), fault: m.fault, effect: m.effect })),
  });

/** The body is not validated: any object can be signed, so nothing is an unknown field. */
export const sign: RouteHandler<typeof routes.sign, AppEnv> = async (c) => {
  const body = await rawBodyOf(c, routes.sign);
  const merchant = c.get('merchant');
  return ok(c, 'Signature of this body with your signing salt; send sign_type "SHA512" and this sign with it.', {
    sign_type: 'SHA512',
    sign: signBody(body, merchant.signingSalt),
    string_to_sign: maskedStringToSign(body),
  });
};
