/** SPEC 18: the signature doctor works out a hint at most once per body and at most 10 times a second per merchant. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { diagnose, DIAGNOSIS_TEXT_BUDGET, signatureHint } from '../../src/domain/signature-doctor.js';
import { fieldsToSign } from '../../src/domain/signature.js';
import { CostlyWorkBudget } from '../../src/services/costly-work.js';
import { HINTS_PER_SECOND, SignatureHints, sharedBudgetHint, withheldHint } from '../../src/services/signature-hints.js';

const SALT = 'the-salt';
const body = (n: number) => ({ payee: 'P', merchant_ref_no: `r-${n}`, amount: 25, sign_type: 'SHA512', sign: 'f'.repeat(128) });
const sha512 = (text: string) => createHash('sha512').update(text).digest('hex');

function hintsOn(start = 1_000_000) {
  const time = { now: start };
  return { hints: new SignatureHints(() => time.now, new CostlyWorkBudget(() => time.now)), time };
}

describe('signature hints: at most 10 a second per merchant, once per body', () => {
  it('gives 10 hints within a second, withholds the 11th saying when the next comes, and gives it once the second has passed', () => {
    const { hints, time } = hintsOn();
    for (let n = 0; n < HINTS_PER_SECOND; n++) {
      time.now += 10;
      expect(hints.hintFor('M1', body(n), SALT, 'f'.repeat(128))).toMatch(/^No known mistake matches/);
    }
    time.now += 300;
    // The first of the ten was 390 ms ago: the next hint can be worked out 610 ms from now.
    expect(hints.hintFor('M1', body(99), SALT, 'f'.repeat(128))).toBe(withheldHint(610));
    expect(withheldHint(610)).toMatch(/^Hint withheld: the sandbox works out at most 10 signature hints a second per merchant .* The next can be given in 610 ms; .*string_to_sign/);
    time.now += 609;
    expect(hints.hintFor('M1', body(99), SALT, 'f'.repeat(128))).toBe(withheldHint(1));
    time.now += 1;
    expect(hints.hintFor('M1', body(99), SALT, 'f'.repeat(128))).toMatch(/^No known mistake matches/);
  });

  it('counts per merchant: another merchant still gets its hints', () => {
    const { hints } = hintsOn();
    for (let n = 0; n <= HINTS_PER_SECOND; n++) hints.hintFor('M1', body(n), SALT, 'f'.repeat(128));
    expect(hints.hintFor('M1', body(50), SALT, 'f'.repeat(128))).toMatch(/^Hint withheld/);
    expect(hints.hintFor('M2', body(50), SALT, 'f'.repeat(128))).toMatch(/^No known mistake matches/);
  });

  it('works a body out once: the same body again gets the hint kept, without counting, also past the limit', () => {
    const { hints } = hintsOn();
    const sent = { ...body(1), sign: sha512(fieldsToSign(body(1))) };
    const first = hints.hintFor('M1', sent, SALT, sent.sign);
    expect(first).toMatch(/^Known mistake: \[salt-missing\]/);
    for (let n = 0; n < 3 * HINTS_PER_SECOND; n++) expect(hints.hintFor('M1', sent, SALT, sent.sign)).toBe(first);
    // The repeats counted nothing: nine more bodies get their hints before the limit.
    for (let n = 2; n <= HINTS_PER_SECOND; n++) expect(hints.hintFor('M1', body(n), SALT, 'f'.repeat(128))).toMatch(/^No known mistake/);
    expect(hints.hintFor('M1', body(77), SALT, 'f'.repeat(128))).toMatch(/^Hint withheld/);
  });

  it("withholds a hint past the merchant's fair share of the instance's budget for costly work, saying so", () => {
    const time = { now: 1_000_000 };
    const budget = new CostlyWorkBudget(() => time.now);
    const hints = new SignatureHints(() => time.now, budget);
    // Another merchant's work has taken the instance's second and a half: M1 (under its share) waits for the instance.
    budget.spend('M2', 150);
    expect(hints.hintFor('M1', body(1), SALT, 'f'.repeat(128))).toBe(sharedBudgetHint(500, 1));
    expect(sharedBudgetHint(500, 1)).toMatch(/^Hint withheld: signature hints draw on this instance's CPU budget .* string_to_sign/);
    time.now += 500;
    expect(hints.hintFor('M1', body(1), SALT, 'f'.repeat(128))).toMatch(/^No known mistake matches/);
  });

  it('tells bodies apart by everything sent, the order of fields included', () => {
    const { hints } = hintsOn();
    const sorted = { amount: 25, payee: 'P', sign_type: 'SHA512' };
    const sentOrder = { payee: 'P', amount: 25, sign_type: 'SHA512' };
    const sign = sha512(`payee=P&amount=25.00&${SALT}`);
    expect(hints.hintFor('M1', { ...sorted, sign }, SALT, sign)).toMatch(/^No known mistake/);
    expect(hints.hintFor('M1', { ...sentOrder, sign }, SALT, sign)).toMatch(/^Known mistake: \[fields-in-sent-order\]/);
  });
});

describe('signature doctor on long bodies: hashes at most its budget', () => {
  /** 63 KB of unknown fields whose values every way writes differently. */
  function longBody(): Record<string, unknown> {
    const out: Record<string, unknown> = { sign_type: 'SHA512', payee: 'P', amount: 25, metadata: { z: 'a b', a: 1 }, empty: '' };
    for (let i = 0; JSON.stringify(out).length < 63_000; i++) out[`zz_unknown_${String(i).padStart(4, '0')}`] = `v a!'()*~ é ${'y'.repeat(150)}`;
    return out;
  }

  it('tries the likeliest ways within the budget and says the rarer were not tried', () => {
    const long = longBody();
    const fields = fieldsToSign(long);
    expect(fields.length * 62).toBeGreaterThan(DIAGNOSIS_TEXT_BUDGET);
    const unknown = diagnose(long, SALT, 'f'.repeat(128));
    expect(unknown).toEqual({ mistakes: null, untried: true });
    expect(signatureHint(unknown.mistakes, unknown.untried)).toMatch(/^No known mistake matches this sign among the likeliest: this body is long, so the rarer combinations of mistakes were not tried/);
    // A single mistake is still found on a long body.
    expect(diagnose(long, SALT, sha512(fields)).mistakes?.map((m) => m.id)).toEqual(['salt-missing']);
    expect(diagnose(long, SALT, sha512(`${fields.replaceAll('%20', '+')}&${SALT}`)).mistakes?.map((m) => m.id)).toEqual(['form-encoding']);
  });

  it('tries every way on a short body', () => {
    expect(diagnose(body(1), SALT, 'f'.repeat(128))).toEqual({ mistakes: null, untried: false });
  });
});
