/**
 * The signature doctor through real creates: each wrong sign is built the way a real client
 * builds it (its own code, not the sandbox's), and the 401 must name that mistake.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { uniqueRef } from '../helpers.js';
import { call, expectEnvelope, manualClock, quietSandbox, SIGNED_KEY, SIGNED_PAYEE, SIGNED_SALT } from '../support/http.js';

type Body = Record<string, unknown>;

/** Fields in the order a client writes them (not sorted), with a space, unsorted metadata keys, 12.3. */
function order(extra: Body = {}): Body {
  return {
    payee: SIGNED_PAYEE,
    product_type: 'QR_DYNAMIC',
    merchant_ref_no: uniqueRef('doctor'),
    amount: 12.3,
    currency_code: 'SGD',
    metadata: { table: 7, note: 'window seat', guest: { name: "O'Brien", vip: true } },
    sign_type: 'SHA512',
    ...extra,
  };
}

/** A client's own sorted-key JSON. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson((value as Body)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

interface ClientWays {
  readonly entries?: (body: Body) => [string, unknown][];
  readonly text?: (name: string, value: unknown) => string;
  readonly join?: (pairs: [string, string][]) => string;
  readonly salt?: (fields: string) => string;
  readonly digest?: (text: string) => string;
}

/** A client's signer: every step right unless a test swaps one for a known mistake. */
function clientSign(body: Body, ways: ClientWays = {}): string {
  const entries = ways.entries ?? ((b) => Object.entries(b).filter(([k, v]) => k !== 'sign' && k !== 'sign_type' && v !== null && v !== '').sort(([a], [b]) => (a < b ? -1 : 1)));
  const text = ways.text ?? ((name, value) => (name === 'amount' ? (value as number).toFixed(2) : typeof value === 'object' ? sortedJson(value) : String(value)));
  const join = ways.join ?? ((pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&'));
  const salt = ways.salt ?? ((fields) => `${fields}&${SIGNED_SALT}`);
  const digest = ways.digest ?? ((t) => createHash('sha512').update(t, 'utf8').digest('hex'));
  return digest(salt(join(entries(body).map(([k, v]) => [k, text(k, v)]))));
}

describe('signature doctor: a mismatch names the known mistake behind it', () => {
  let sandbox: Sandbox;
  const clock = manualClock();
  beforeAll(async () => {
    sandbox = await quietSandbox({ clock: clock.clock });
  });
  afterAll(() => sandbox.close());

  async function hintFor(body: Body, sign: string): Promise<string> {
    // Ten hints a second per merchant are worked out: these tests keep to that pace.
    clock.advance(100);
    const answer = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { key: SIGNED_KEY, body: { ...body, sign } });
    expectEnvelope(answer, 401);
    expect(answer.body.description).toMatch(/mismatch/i);
    expect(answer.body.string_to_sign).toContain('<signing_salt>');
    expect(answer.body.signature_hint).toBeTypeOf('string');
    expect(answer.text).not.toContain(SIGNED_SALT);
    return answer.body.signature_hint as string;
  }

  it('the client signer is right when no step is swapped: the create is accepted', async () => {
    const body = order();
    const answer = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { key: SIGNED_KEY, body: { ...body, sign: clientSign(body) } });
    expectEnvelope(answer, 200);
  });

  it('upper-case hex (toUpperCase on the digest)', async () => {
    const body = order();
    const hint = await hintFor(body, clientSign(body).toUpperCase());
    expect(hint).toMatch(/^Known mistake: \[uppercase-hex\]/);
    expect(hint).toMatch(/lower case/);
  });

  it('spaces encoded as + (form encoding with URLSearchParams)', async () => {
    const body = order();
    const hint = await hintFor(body, clientSign(body, { join: (pairs) => new URLSearchParams(pairs).toString() }));
    expect(hint).toMatch(/^Known mistake: \[form-encoding\]/);
    expect(hint).toContain('%20');
  });

  it('spaces encoded as + (encodeURIComponent, then %20 replaced by +)', async () => {
    const body = order();
    const hint = await hintFor(body, clientSign(body, { join: (pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v).replace(/%20/g, '+')}`).join('&') }));
    expect(hint).toMatch(/^Known mistake: \[form-encoding\]/);
  });

  it('fields in the order sent instead of sorted', async () => {
    const body = order();
    const hint = await hintFor(body, clientSign(body, { entries: (b) => Object.entries(b).filter(([k, v]) => k !== 'sign_type' && v !== null) }));
    expect(hint).toMatch(/^Known mistake: \[fields-in-sent-order\]/);
    expect(hint).toMatch(/sort the fields by name/);
  });

  it('salt missing', async () => {
    const body = order();
    const hint = await hintFor(body, clientSign(body, { salt: (fields) => fields }));
    expect(hint).toMatch(/^Known mistake: \[salt-missing\]/);
  });

  it('salt appended without &', async () => {
    const body = order();
    const hint = await hintFor(body, clientSign(body, { salt: (fields) => fields + SIGNED_SALT }));
    expect(hint).toMatch(/^Known mistake: \[salt-without-ampersand\]/);
  });

  it("SHA-256 instead of SHA-512 (Node's crypto sha256)", async () => {
    const body = order();
    const hint = await hintFor(body, clientSign(body, { digest: (t) => createHash('sha256').update(t).digest('hex') }));
    expect(hint).toMatch(/^Known mistake: \[sha256\]/);
    expect(hint).toMatch(/SHA-512/);
  });

  it('SHA-256 and upper-case hex together', async () => {
    const body = order();
    const hint = await hintFor(body, clientSign(body, { digest: (t) => createHash('sha256').update(t).digest('hex').toUpperCase() }));
    expect(hint).toMatch(/^2 known mistakes together/);
    expect(hint).toContain('[sha256]');
    expect(hint).toContain('[uppercase-hex]');
  });

  it.each([12.3, 25, 0.5])('amount %s not written with two decimals (String(amount))', async (amount) => {
    const body = order({ amount });
    const hint = await hintFor(body, clientSign(body, { text: (name, value) => (typeof value === 'object' ? sortedJson(value) : String(value)) }));
    expect(hint).toMatch(/^Known mistake: \[amount-not-two-decimals\]/);
    expect(hint).toMatch(/toFixed\(2\)/);
  });

  it('metadata keys not sorted (JSON.stringify as is)', async () => {
    const body = order();
    const hint = await hintFor(
      body,
      clientSign(body, { text: (name, value) => (name === 'amount' ? (value as number).toFixed(2) : typeof value === 'object' ? JSON.stringify(value) : String(value)) }),
    );
    expect(hint).toMatch(/^Known mistake: \[metadata-keys-unsorted\]/);
  });

  it('sign_type included in the string', async () => {
    const body = order();
    const hint = await hintFor(body, clientSign(body, { entries: (b) => Object.entries(b).filter(([k, v]) => k !== 'sign' && v !== null).sort(([a], [c]) => (a < c ? -1 : 1)) }));
    expect(hint).toMatch(/^Known mistake: \[sign-fields-included\]/);
  });

  it('sign included as an empty placeholder beside sign_type', async () => {
    const body = order();
    const placeholder = { ...body, sign: '' };
    const sign = clientSign(placeholder, { entries: (b) => Object.entries(b).sort(([a], [c]) => (a < c ? -1 : 1)) });
    const hint = await hintFor(body, sign);
    expect(hint).toMatch(/^Known mistake: \[sign-fields-included\]/);
  });

  it('null fields written into the string (payer=null)', async () => {
    const body = order({ payer: null });
    const hint = await hintFor(body, clientSign(body, { entries: (b) => Object.entries(b).filter(([k]) => k !== 'sign' && k !== 'sign_type').sort(([a], [c]) => (a < c ? -1 : 1)) }));
    expect(hint).toMatch(/^Known mistake: \[empty-fields-included\]/);
  });

  it('a SHA-512 digest written in base64', async () => {
    const body = order();
    const hint = await hintFor(body, clientSign(body, { digest: (t) => createHash('sha512').update(t).digest('base64') }));
    expect(hint).toMatch(/^Known mistake: \[base64-digest\]/);
  });

  it('new URLSearchParams on the unsorted entries: form encoding and sent order, both named', async () => {
    const body = order();
    const sign = clientSign(body, {
      entries: (b) => Object.entries(b).filter(([k]) => k !== 'sign_type'),
      join: (pairs) => new URLSearchParams(pairs).toString(),
    });
    const hint = await hintFor(body, sign);
    expect(hint).toMatch(/^2 known mistakes together/);
    expect(hint).toContain('[form-encoding]');
    expect(hint).toContain('[fields-in-sent-order]');
  });

  it("the docs' doctor example answers the hint the docs show", async () => {
    const page = readFileSync(new URL('../../docs/signatures.md', import.meta.url), 'utf8');
    const part = page.slice(page.indexOf('## Signature doctor'));
    const sent = JSON.parse(/-d '([^']+)'/.exec(part)![1]!) as Body;
    const shown = /"signature_hint":("(?:[^"\\]|\\.)*")/.exec(part)![1]!;
    clock.advance(100);
    const answer = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { key: SIGNED_KEY, body: sent });
    expectEnvelope(answer, 401);
    expect(answer.body.signature_hint).toBe(JSON.parse(shown));
  });

  it('no known mistake: says so and points at string_to_sign', async () => {
    const body = order();
    const hint = await hintFor(body, clientSign({ ...body, amount: 12.31 }));
    expect(hint).toMatch(/^No known mistake matches/);
    expect(hint).toContain('string_to_sign');
  });

  it('a sign signed with another salt matches nothing', async () => {
    const body = order();
    const hint = await hintFor(body, clientSign(body, { salt: (fields) => `${fields}&not-the-salt` }));
    expect(hint).toMatch(/^No known mistake matches/);
  });

  it('a sign that is no digest at all matches nothing', async () => {
    const hint = await hintFor(order(), 'not-a-digest');
    expect(hint).toMatch(/^No known mistake matches/);
  });
});
