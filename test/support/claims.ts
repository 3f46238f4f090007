/** Places for claimDue with no limit per merchant, nothing in flight and no listener: a test's claim of everything due. */
import type { MerchantPlaces } from '../../src/store/delivery-log.js';

export const ANY_MERCHANT: MerchantPlaces = { perMerchant: Number.POSITIVE_INFINITY, inFlight: new Map() };
