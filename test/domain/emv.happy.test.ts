import { describe, expect, it } from 'vitest';
import { crc16CcittFalse, decodeEmvPayload, SANDBOX_GUID, toEmvPayload, toEmvText } from '../../src/domain/emv.js';
import type { EmvPaymentFields } from '../../src/domain/emv.js';

const FIELDS: EmvPaymentFields = {
  payeeId: 'DEMO-MERCHANT-1',
  mcc: '5812',
  currencyNumeric: '702',
  amount: '10.50',
  countryCode: 'SG',
  merchantName: 'Café Zoë & Sons',
  merchantCity: 'Singapore',
  paymentCode: 'ABCD2345WXYZ',
};

function tag(decoded: ReturnType<typeof decodeEmvPayload>, id: string) {
  const found = decoded.tags.find((t) => t.tag === id);
  if (!found) throw new Error(`tag ${id} missing`);
  return found;
}

describe('EMV: CRC-16/CCITT-FALSE', () => {
  it('gives the catalogued check value 29B1 for "123456789"', () => {
    expect(crc16CcittFalse('123456789')).toBe('29B1');
  });

  it('gives FFFF (the initial value) for the empty string and always 4 upper-case hex digits', () => {
    expect(crc16CcittFalse('')).toBe('FFFF');
    for (const text of ['A', '000201', 'hello world', '6304']) expect(crc16CcittFalse(text)).toMatch(/^[0-9A-F]{4}$/);
  });
});

describe('EMV: merchant-presented payload', () => {
  const payload = toEmvPayload(FIELDS);
  const decoded = decodeEmvPayload(payload);

  it('is valid, with a CRC that holds', () => {
    expect(decoded.errors).toEqual([]);
    expect(decoded.valid).toBe(true);
    expect(decoded.crcValid).toBe(true);
    expect(payload.slice(-8, -4)).toBe('6304');
    expect(payload.slice(-4)).toBe(crc16CcittFalse(payload.slice(0, -4)));
  });

  it('starts with format indicator 01 and the dynamic point of initiation 12', () => {
    expect(payload.startsWith('000201010212')).toBe(true);
    expect(tag(decoded, '00').value).toBe('01');
    expect(tag(decoded, '01').value).toBe('12');
  });

  it('carries the sandbox GUID and the payee id in the merchant account template (tag 26)', () => {
    const account = tag(decoded, '26');
    expect(account.name).toBe('Merchant Account Information');
    expect(account.children).toEqual([
      { tag: '00', name: 'Globally Unique Identifier', value: SANDBOX_GUID },
      { tag: '01', name: 'Payee ID', value: 'DEMO-MERCHANT-1' },
    ]);
  });

  it('carries MCC, numeric currency, amount, country, name and city in tags 52 to 60', () => {
    expect(tag(decoded, '52').value).toBe('5812');
    expect(tag(decoded, '53').value).toBe('702');
    expect(tag(decoded, '54').value).toBe('10.50');
    expect(tag(decoded, '58').value).toBe('SG');
    expect(tag(decoded, '59').value).toBe('Cafe Zoe & Sons');
    expect(tag(decoded, '60').value).toBe('Singapore');
  });

  it('carries payment_code as the reference label, tag 62 sub-tag 05', () => {
    expect(tag(decoded, '62').children).toEqual([{ tag: '05', name: 'Reference Label', value: 'ABCD2345WXYZ' }]);
    expect(decoded.paymentCode).toBe('ABCD2345WXYZ');
  });

  it('lists the tags in EMV order, CRC last', () => {
    expect(decoded.tags.map((t) => t.tag)).toEqual(['00', '01', '26', '52', '53', '54', '58', '59', '60', '62', '63']);
  });

  it('fits the largest amount (13 characters) in tag 54', () => {
    const big = decodeEmvPayload(toEmvPayload({ ...FIELDS, amount: '9999999999.99' }));
    expect(big.valid).toBe(true);
    expect(tag(big, '54').value).toBe('9999999999.99');
  });
});

describe('EMV: text fields', () => {
  it('strips accents and non-ASCII, trims, and cuts to the field length', () => {
    expect(toEmvText('  Zoë’s Café 東京  ', 25)).toBe('Zoes Cafe');
    expect(toEmvText('A very long merchant name that goes on', 25)).toHaveLength(25);
  });

  it('writes NA for a name with nothing printable', () => {
    expect(toEmvText('東京', 15)).toBe('NA');
  });
});
