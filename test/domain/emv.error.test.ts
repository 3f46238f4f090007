import { describe, expect, it } from 'vitest';
import { crc16CcittFalse, decodeEmvPayload, toEmvPayload } from '../../src/domain/emv.js';

const PAYLOAD = toEmvPayload({
  payeeId: 'DEMO-MERCHANT-1',
  mcc: '5812',
  currencyNumeric: '702',
  amount: '10.50',
  countryCode: 'SG',
  merchantName: 'Demo',
  merchantCity: 'Singapore',
  paymentCode: 'ABCD2345WXYZ',
});

describe('EMV decoder: payloads it flags', () => {
  it('flags a wrong CRC and names both values', () => {
    const crc = PAYLOAD.slice(-4);
    const wrong = crc === '0000' ? '0001' : '0000';
    const decoded = decodeEmvPayload(PAYLOAD.slice(0, -4) + wrong);
    expect(decoded.valid).toBe(false);
    expect(decoded.crcValid).toBe(false);
    expect(decoded.errors.join(' ')).toContain('CRC mismatch');
    expect(decoded.errors.join(' ')).toContain(crc);
  });

  it('flags a payload whose content was changed after the CRC was computed', () => {
    const tampered = PAYLOAD.replace('5405' + '10.50', '5405' + '99.50');
    expect(tampered).not.toBe(PAYLOAD);
    const decoded = decodeEmvPayload(tampered);
    expect(decoded.crcValid).toBe(false);
    expect(decoded.valid).toBe(false);
  });

  it('flags a truncated payload', () => {
    const decoded = decodeEmvPayload(PAYLOAD.slice(0, 30));
    expect(decoded.valid).toBe(false);
    expect(decoded.errors.some((e) => e.includes('announces'))).toBe(true);
  });

  it('flags a payload without a CRC tag', () => {
    const decoded = decodeEmvPayload(PAYLOAD.slice(0, -8));
    expect(decoded.valid).toBe(false);
    expect(decoded.errors.join(' ')).toContain('tag 63');
  });

  it('flags text that is not TLV at all', () => {
    const decoded = decodeEmvPayload('hello, world');
    expect(decoded.valid).toBe(false);
    expect(decoded.errors[0]).toContain('two-digit tag and length');
  });

  it('flags a payload that does not start with tag 00 = "01"', () => {
    // Format indicator 02 instead of 01, with a CRC recomputed so only the tag is wrong.
    const body = '000202' + PAYLOAD.slice(6, -4);
    const decoded = decodeEmvPayload(body + crc16CcittFalse(body));
    expect(decoded.crcValid).toBe(true);
    expect(decoded.valid).toBe(false);
    expect(decoded.errors.join(' ')).toContain('tag 00');
  });

  it('refuses to encode a field longer than 99 characters', () => {
    expect(() =>
      toEmvPayload({ payeeId: 'x'.repeat(100), mcc: '5812', currencyNumeric: '702', amount: '1.00', countryCode: 'SG', merchantName: 'A', merchantCity: 'B', paymentCode: 'C' }),
    ).toThrow(RangeError);
  });
});

