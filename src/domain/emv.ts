/** EMVCo merchant-presented QR payloads: encode, decode, CRC-16/CCITT-FALSE. */

export const SANDBOX_GUID = 'COM.PAYREQ.SANDBOX';

/** Point of initiation (tag 01): a static QR may be shown to many payers, a dynamic one to one. */
export type EmvInitiation = 'static' | 'dynamic';

const INITIATION_CODES: Readonly<Record<EmvInitiation, string>> = { static: '11', dynamic: '12' };

/** The product type QR_STATIC is a static QR; every other product type is dynamic. */
export function initiationOf(productType: string): EmvInitiation {
  return productType === 'QR_STATIC' ? 'static' : 'dynamic';
}

export interface EmvPaymentFields {
  readonly payeeId: string;
  readonly mcc: string;
  readonly currencyNumeric: string;
  readonly amount: string;
  readonly countryCode: string;
  readonly merchantName: string;
  readonly merchantCity: string;
  readonly paymentCode: string;
  /** Tag 01; dynamic when left out. */
  readonly initiation?: EmvInitiation;
}

/** The CRC of each byte value: one lookup per character instead of eight shifts. */
const CRC_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[byte] = crc;
  }
  return table;
})();

/** CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF, no reflection, no final xor. */
export function crc16CcittFalse(text: string): string {
  let crc = 0xffff;
  // Each character counts by its low byte (EMV payloads are ASCII).
  for (let i = 0; i < text.length; i++) crc = ((crc << 8) ^ CRC_TABLE[((crc >> 8) ^ text.charCodeAt(i)) & 0xff]!) & 0xffff;
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

function tlv(tag: string, value: string): string {
  if (value.length > 99) throw new RangeError(`EMV tag ${tag} value is longer than 99 characters`);
  return `${tag}${String(value.length).padStart(2, '0')}${value}`;
}

/** Merchant names and cities repeat on every payload: each is cleaned once (bounded). */
const emvTextCache = new Map<string, string>();

/** EMV fields allow the "ans" set only: strip accents and anything outside printable ASCII. */
export function toEmvText(text: string, maxLength: number): string {
  const key = `${maxLength}:${text}`;
  let cleaned = emvTextCache.get(key);
  if (cleaned === undefined) {
    if (emvTextCache.size >= 1000) emvTextCache.clear();
    emvTextCache.set(key, (cleaned = cleanEmvText(text, maxLength)));
  }
  return cleaned;
}

function cleanEmvText(text: string, maxLength: number): string {
  const ascii = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '')
    .trim();
  return (ascii || 'NA').slice(0, maxLength);
}

export function toEmvPayload(fields: EmvPaymentFields): string {
  const body =
    tlv('00', '01') +
    tlv('01', INITIATION_CODES[fields.initiation ?? 'dynamic']) +
    tlv('26', tlv('00', SANDBOX_GUID) + tlv('01', fields.payeeId)) +
    tlv('52', fields.mcc) +
    tlv('53', fields.currencyNumeric) +
    tlv('54', fields.amount) +
    tlv('58', fields.countryCode) +
    tlv('59', toEmvText(fields.merchantName, 25)) +
    tlv('60', toEmvText(fields.merchantCity, 15)) +
    tlv('62', tlv('05', fields.paymentCode)) +
    '6304';
  return body + crc16CcittFalse(body);
}

export interface EmvTag {
  readonly tag: string;
  readonly name: string;
  readonly value: string;
  readonly children?: readonly EmvTag[];
}

export interface DecodedEmvPayload {
  readonly valid: boolean;
  readonly crcValid: boolean;
  readonly errors: readonly string[];
  readonly tags: readonly EmvTag[];
  /** The reference label of tag 62, where the sandbox carries payment_code. */
  readonly paymentCode?: string;
}

const TAG_NAMES: Readonly<Record<string, string>> = {
  '00': 'Payload Format Indicator',
  '01': 'Point of Initiation Method',
  '52': 'Merchant Category Code',
  '53': 'Transaction Currency',
  '54': 'Transaction Amount',
  '55': 'Tip or Convenience Indicator',
  '58': 'Country Code',
  '59': 'Merchant Name',
  '60': 'Merchant City',
  '61': 'Postal Code',
  '62': 'Additional Data Field Template',
  '63': 'CRC',
  '64': 'Merchant Information - Language Template',
};

const ACCOUNT_CHILD_NAMES: Readonly<Record<string, string>> = { '00': 'Globally Unique Identifier', '01': 'Payee ID' };
const ADDITIONAL_DATA_NAMES: Readonly<Record<string, string>> = {
  '01': 'Bill Number',
  '02': 'Mobile Number',
  '03': 'Store Label',
  '04': 'Loyalty Number',
  '05': 'Reference Label',
  '06': 'Customer Label',
  '07': 'Terminal Label',
  '08': 'Purpose of Transaction',
};

function tagName(tag: string): string {
  const n = Number(tag);
  if (n >= 2 && n <= 51) return 'Merchant Account Information';
  if (n >= 80 && n <= 99) return 'Unreserved Template';
  return TAG_NAMES[tag] ?? 'Unknown';
}

function splitTlv(text: string, errors: string[], where: string): { tag: string; value: string }[] {
  const out: { tag: string; value: string }[] = [];
  let i = 0;
  while (i < text.length) {
    const tag = text.slice(i, i + 2);
    const lengthText = text.slice(i + 2, i + 4);
    if (!/^\d{2}$/.test(tag) || !/^\d{2}$/.test(lengthText)) {
      errors.push(`${where}: expected a two-digit tag and length at position ${i}`);
      break;
    }
    const length = Number(lengthText);
    const value = text.slice(i + 4, i + 4 + length);
    if (value.length !== length) {
      errors.push(`${where}: tag ${tag} announces ${length} characters but only ${value.length} remain`);
      break;
    }
    out.push({ tag, value });
    i += 4 + length;
  }
  return out;
}

export function decodeEmvPayload(payload: string): DecodedEmvPayload {
  const errors: string[] = [];
  const raw = splitTlv(payload, errors, 'payload');
  const tags: EmvTag[] = raw.map(({ tag, value }) => {
    const n = Number(tag);
    const childNames = n >= 26 && n <= 51 ? ACCOUNT_CHILD_NAMES : tag === '62' ? ADDITIONAL_DATA_NAMES : undefined;
    if (!childNames) return { tag, name: tagName(tag), value };
    const children = splitTlv(value, errors, `tag ${tag}`).map((c) => ({
      tag: c.tag,
      name: childNames[c.tag] ?? 'Unknown',
      value: c.value,
    }));
    return { tag, name: tagName(tag), value, children };
  });

  const crcTag = tags.at(-1);
  let crcValid = false;
  if (!crcTag || crcTag.tag !== '63' || crcTag.value.length !== 4) {
    errors.push('the payload must end with tag 63 (CRC) of 4 hexadecimal characters');
  } else {
    const expected = crc16CcittFalse(payload.slice(0, -4));
    crcValid = expected === crcTag.value.toUpperCase();
    if (!crcValid) errors.push(`CRC mismatch: the payload says ${crcTag.value}, its content gives ${expected}`);
  }
  if (tags[0]?.tag !== '00' || tags[0].value !== '01') errors.push('the payload must start with tag 00 = "01"');
  const paymentCode = tags.find((t) => t.tag === '62')?.children?.find((c) => c.tag === '05')?.value;
  return { valid: errors.length === 0, crcValid, errors, tags, ...(paymentCode ? { paymentCode } : {}) };
}
