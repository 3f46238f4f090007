/** The due index: the scheduler and the list route look only at payments due now, and miss none (on every store: run also in the PostgreSQL pass). */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dueWork, nextDueAt } from '../../src/domain/transitions.js';
import type { Sandbox } from '../../src/index.js';
import { DueIndex } from '../../src/store/due-index.js';
import { aPayment, paymentIn, STATE_NAMES, T0 } from '../support/payments.js';
import { call, createPayment, manualClock, memorySandbox, statusOf } from '../support/http.js';

describe('nextDueAt', () => {
  const cases = [
    ...STATE_NAMES.map((state) => paymentIn(state)),
    aPayment({ status: 'W', payDueAt: T0 + 30_000 }),
    aPayment({ status: 'W', payDueAt: T0 + 15 * 60_000 }),
    aPayment({ status: 'P', expiresAt: T0 + 10 }),
  ];

  it.each(cases.map((p) => [`${p.status}${p.settled ? ' settled' : ''}${p.payDueAt ? ' pays later' : ''}`, p] as const))(
    '%s: dueWork is null just before nextDueAt and due at it (auto-settle on and off)',
    (_name, p) => {
      for (const autoSettle of [true, false]) {
        const at = nextDueAt(p, autoSettle);
        if (at === null) {
          expect(dueWork(p, T0 + 400 * 86_400_000, autoSettle)).toBeNull();
          continue;
        }
        expect(dueWork(p, at - 1, autoSettle)).toBeNull();
        expect(dueWork(p, at, autoSettle)).not.toBeNull();
      }
    },
  );
});

describe('DueIndex', () => {
  it('answers each due id once, earliest first, and keeps the rest', () => {
    const index = new DueIndex();
    const late = aPayment({ id: 'pay_late', expiresAt: T0 + 300 });
    index.rebuild('DEMO-MERCHANT-1', [late, aPayment({ id: 'pay_b', expiresAt: T0 + 200 }), paymentIn('E')]);
    index.note(aPayment({ id: 'pay_a', expiresAt: T0 + 100 }));
    index.note(aPayment({ id: 'pay_a', expiresAt: T0 + 100, version: 2 }));
    expect(index.takeDue('DEMO-MERCHANT-1', T0 + 99)).toEqual([]);
    expect(index.takeDue('DEMO-MERCHANT-1', T0 + 250)).toEqual(['pay_a', 'pay_b']);
    expect(index.takeDue('DEMO-MERCHANT-1', T0 + 250)).toEqual([]);
    expect(index.takeDue('DEMO-MERCHANT-1', T0 + 300)).toEqual(['pay_late']);
  });

  it('answers due ids in time order through growth and shrinking of its heap (randomised, seeded)', () => {
    let seed = 42;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const index = new DueIndex();
    index.rebuild('M', []);
    const pending: { at: number; id: string }[] = [];
    let now = T0;
    for (let round = 0; round < 40; round++) {
      // Grow past a few doublings, then drain most of it (the heap gives room back).
      for (let i = 0, n = Math.floor(random() * 400); i < n; i++) {
        const at = now + 1 + Math.floor(random() * 1_000);
        const id = `pay_${round}_${i}`;
        pending.push({ at, id });
        index.note(aPayment({ id, payeeId: 'M', expiresAt: at }));
      }
      now += Math.floor(random() * 900);
      const due = pending.filter((e) => e.at <= now).sort((a, b) => a.at - b.at);
      const taken = index.takeDue('M', now);
      expect(new Set(taken)).toEqual(new Set(due.map((e) => e.id)));
      for (let i = 1; i < taken.length; i++) expect(pending.find((e) => e.id === taken[i])!.at).toBeGreaterThanOrEqual(pending.find((e) => e.id === taken[i - 1])!.at);
      pending.splice(0, pending.length, ...pending.filter((e) => e.at > now));
    }
    expect(index.takeDue('M', now + 10_000).length).toBe(pending.length);
  });

  it('is built on first use and again after its merchant is dropped (a reset)', () => {
    const index = new DueIndex();
    expect(index.needsRebuild('M')).toBe(true);
    index.rebuild('M', []);
    expect(index.needsRebuild('M')).toBe(false);
    index.drop('M');
    expect(index.needsRebuild('M')).toBe(true);
  });
});

describe('runDue with the due index (in-process stores) or the due_at index (PostgreSQL)', () => {
  let sandbox: Sandbox;
  afterEach(() => sandbox.close());

  it('reads only the payments that are due, however many are live, and still expires every one', async () => {
    const clock = manualClock();
    sandbox = await memorySandbox({ clock: clock.clock });
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push((await createPayment(sandbox)).payment_id);
    const advance = (seconds: number) => call(sandbox, 'POST', '/sandbox/v1/clock/advance', { body: { seconds } });

    const scans = vi.spyOn(sandbox.services.store, 'livePayments');
    const reads = vi.spyOn(sandbox.services.store, 'payment');
    expect((await advance(60)).body).toMatchObject({ changed: 0 });
    // The in-process stores build their index from the live payments once; PostgreSQL asks its index and scans none.
    const built = sandbox.services.store.kind === 'postgres' ? 0 : 1;
    expect(scans).toHaveBeenCalledTimes(built);
    expect((await advance(60)).body).toMatchObject({ changed: 0 });
    expect(scans).toHaveBeenCalledTimes(built);
    expect(reads).not.toHaveBeenCalled();

    // Created after the index was built: noted when stored.
    ids.push((await createPayment(sandbox)).payment_id);
    expect((await advance(15 * 60)).body).toMatchObject({ changed: 41 });
    for (const id of ids) expect(await statusOf(sandbox, id)).toMatchObject({ payment_status: 'E' });
  });

  it('a payment changed after it was noted is judged on its stored state', async () => {
    const clock = manualClock();
    sandbox = await memorySandbox({ clock: clock.clock });
    const id = (await createPayment(sandbox)).payment_id;
    await call(sandbox, 'POST', '/sandbox/v1/clock/advance', { body: { seconds: 1 } });
    // Paid before its expiry: the expiry hint goes stale, and settlement falls due at midnight.
    await call(sandbox, 'POST', `/sandbox/v1/payments/${id}/pay`, { body: {} });
    expect((await call(sandbox, 'POST', '/sandbox/v1/clock/advance', { body: { seconds: 15 * 60 } })).body).toMatchObject({ changed: 0 });
    expect(await statusOf(sandbox, id)).toMatchObject({ payment_status: 'A' });
    expect((await call(sandbox, 'POST', '/sandbox/v1/clock/advance', { body: { seconds: 86_400 } })).body).toMatchObject({ changed: 1 });
    const events = await call(sandbox, 'GET', `/sandbox/v1/payments/${id}/events`);
    expect(events.body).toMatchObject({ payment_status: 'A', settled: true });
  });
});
