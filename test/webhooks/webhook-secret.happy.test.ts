/** The webhook secret's rules, pure (domain/webhook-secret.ts): when a secret is made, kept or rotated, and what it signs. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/domain/merchant.js';
import type { Merchant } from '../../src/domain/merchant.js';
import { NO_WEBHOOK_FAULTS } from '../../src/domain/webhook-drills.js';
import { webhookSignature, withRotatedSecret, withWebhookSecret, withWebhookSettings } from '../../src/domain/webhook-secret.js';

const merchant = (extra: Partial<Merchant> = {}): Merchant => ({
  payeeId: 'M1', name: 'M1', city: 'Singapore', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeyHashes: ['k'],
  signingSalt: 'salt', settings: DEFAULT_SETTINGS, clockOffsetMs: 0, createdAt: 0, ...extra,
});
const A = 'https://a.example.test/hooks';
const B = 'https://b.example.test/hooks';
const OLD = 'whsec_old';

describe('webhookSignature', () => {
  it('is t=<t>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>, as openssl computes it', () => {
    // printf '%s' '1700000000.{"a":1}' | openssl dgst -sha256 -hmac 'whsec_test'
    expect(webhookSignature('whsec_test', 1700000000, '{"a":1}')).toBe('t=1700000000,v1=38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789');
  });
  it('covers the bytes as sent: one more space, another t or another secret is another signature', () => {
    const base = webhookSignature('whsec_test', 1700000000, '{"a":1}');
    expect(webhookSignature('whsec_test', 1700000000, '{"a": 1}')).not.toBe(base);
    expect(webhookSignature('whsec_test', 1700000001, '{"a":1}').split(',')[1]).not.toBe(base.split(',')[1]);
    expect(webhookSignature('whsec_other', 1700000000, '{"a":1}')).not.toBe(base);
  });
});

describe('withWebhookSettings', () => {
  it.each([
    ['a first URL', merchant(), { url: A }, true],
    ['another URL', merchant({ webhookUrl: A, webhookSecret: OLD }), { url: B }, true],
    ['a URL after off', merchant({ webhookUrl: null, webhookSecret: OLD }), { url: A }, true],
    ['the same URL, stored before secrets', merchant({ webhookUrl: A }), { url: A }, true],
    ['the same URL', merchant({ webhookUrl: A, webhookSecret: OLD }), { url: A }, false],
    ['drills alone', merchant({ webhookUrl: A, webhookSecret: OLD }), { faults: NO_WEBHOOK_FAULTS }, false],
    ['off', merchant({ webhookUrl: A, webhookSecret: OLD }), { url: null }, false],
  ])('%s: a new secret %s', (_what, current, changes, makes) => {
    const { merchant: next, secret } = withWebhookSettings(current, changes);
    if (makes) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
      expect(next.webhookSecret).toBe(secret);
    } else {
      expect(secret).toBeNull();
      expect(next.webhookSecret).toBe(current.webhookSecret);
    }
  });
});

describe('withRotatedSecret and withWebhookSecret', () => {
  it('rotation makes a new secret for a URL, and nothing without one', () => {
    const rotated = withRotatedSecret(merchant({ webhookUrl: A, webhookSecret: OLD }));
    expect(rotated?.secret).toMatch(/^whsec_/);
    expect(rotated?.secret).not.toBe(OLD);
    expect(rotated?.merchant.webhookSecret).toBe(rotated?.secret);
    expect(withRotatedSecret(merchant({ webhookSecret: OLD }))).toBeNull();
  });
  it('a merchant keeps its secret; one stored before secrets gets one', () => {
    const current = merchant({ webhookUrl: A, webhookSecret: OLD });
    expect(withWebhookSecret(current)).toEqual({ merchant: current, secret: OLD });
    const made = withWebhookSecret(merchant({ webhookUrl: A }));
    expect(made.secret).toMatch(/^whsec_/);
    expect(made.merchant.webhookSecret).toBe(made.secret);
  });
});
