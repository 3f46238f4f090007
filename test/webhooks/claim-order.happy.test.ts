/**
 * The order in which claimDue hands out due deliveries, on each store (SPEC 18, "Webhooks are
 * shared fairly"): round-robin across merchants, counting what each has in flight already, each
 * merchant's own in due order, none past a merchant's places.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import type { Sandbox } from '../../src/index.js';
import type { Delivery, DeliveryLog } from '../../src/store/delivery-log.js';
import { freshDatabase } from '../support/databases.js';
import { removeTempDirs } from '../support/files.js';
import { EACH_STORE } from '../support/sandboxes.js';
import { ANY_MERCHANT } from '../support/claims.js';

afterAll(removeTempDirs);

describe.each(EACH_STORE)('claimDue on the %s store', (_store, make) => {
  let sandbox: Sandbox;
  let log: DeliveryLog;
  beforeAll(async () => {
    sandbox = await make();
    log = sandbox.services.store.deliveries;
  });
  afterAll(() => sandbox.close());

  // Due a day from now: the sandbox's own sender (claiming at the real time) leaves them alone.
  const later = Date.now() + 86_400_000;
  const now = later + 1_000;
  let n = 0;
  /** Names each delivery (A1, B2...) so a claim reads as the names it handed out. */
  const names = new Map<string, string>();
  function delivery(payeeId: string, name: string, dueBy: number): Delivery {
    n += 1;
    names.set(`whd_turn_${n}`, name);
    return {
      id: `whd_turn_${n}`, payeeId, eventId: `evt_turn_${n}`, eventType: 'payment.created', paymentId: `pay_turn_${n}`, url: 'http://127.0.0.1:9/x',
      body: '{}', state: 'pending', attempts: [], attempt: 0, nextAttemptAt: dueBy, createdAt: Date.now(),
    };
  }
  // The order a store answers in is not part of the contract (an UPDATE ... RETURNING has none): which ones is.
  const named = (claimed: readonly Delivery[]) => claimed.map((d) => names.get(d.id)).sort();

  async function merchants(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push((await sandbox.control.enroll({ name: `Turn Shop ${i}` })).payeeId);
    return ids;
  }

  it('hands each merchant one before any gets a second, whoever was due first', async () => {
    const [a, b, c] = await merchants(3);
    // A's six are all due before B's three and C's one: a global due order would hand out A's first.
    await log.record([1, 2, 3, 4, 5, 6].map((i) => delivery(a!, `A${i}`, later + i)));
    await log.record([1, 2, 3].map((i) => delivery(b!, `B${i}`, later + 10 + i)));
    await log.record([delivery(c!, 'C1', later + 20)]);

    expect(named(await log.claimDue(now, 30_000, 4, { perMerchant: 4, inFlight: new Map() }))).toEqual(['A1', 'A2', 'B1', 'C1']);
    // Turns count what is in flight: B's second (its turn 2) before A's third (turn 3); among equal turns, the earlier due.
    const inFlight = new Map([[a!, 2], [b!, 1], [c!, 1]]);
    expect(named(await log.claimDue(now, 30_000, 3, { perMerchant: 4, inFlight }))).toEqual(['A3', 'B2', 'B3']);
    // A merchant's own go in due order, one at a time here.
    const one = { perMerchant: 1, inFlight: new Map() };
    expect(named(await log.claimDue(now, 30_000, 5, one))).toEqual(['A4']);
    expect(named(await log.claimDue(now, 30_000, 5, one))).toEqual(['A5']);
    expect(named(await log.claimDue(now, 30_000, 5, one))).toEqual(['A6']);
    expect(named(await log.claimDue(now, 30_000, 5, ANY_MERCHANT))).toEqual([]);
  });

  it("takes a merchant's earliest due first, whatever order they were written in", async () => {
    const [a] = await merchants(1);
    for (const [name, due] of [['late', 30], ['first', 10], ['middle', 20]] as const) await log.record([delivery(a!, name, later + due)]);
    const one = { perMerchant: 1, inFlight: new Map() };
    expect(named(await log.claimDue(now, 30_000, 3, one))).toEqual(['first']);
    expect(named(await log.claimDue(now, 30_000, 3, one))).toEqual(['middle']);
    expect(named(await log.claimDue(now, 30_000, 3, one))).toEqual(['late']);
  });

  it('hands a merchant no more than its places minus what it has in flight, and nothing when none are free', async () => {
    const [a, b] = await merchants(2);
    await log.record([1, 2, 3, 4, 5, 6].map((i) => delivery(a!, `A${i}`, later + i)));
    await log.record([7, 8].map((i) => delivery(b!, `B${i}`, later + i)));

    // A sends 2 already: A gets its last 2 of 4 places, B both of its own, though 10 are free.
    expect(named(await log.claimDue(now, 30_000, 10, { perMerchant: 4, inFlight: new Map([[a!, 2]]) }))).toEqual(['A1', 'A2', 'B7', 'B8']);
    // A at its limit gets none however many places are free; no place free, nobody gets one.
    expect(named(await log.claimDue(now, 30_000, 10, { perMerchant: 4, inFlight: new Map([[a!, 4]]) }))).toEqual([]);
    expect(named(await log.claimDue(now, 30_000, 0, { perMerchant: 4, inFlight: new Map() }))).toEqual([]);
    // Without a limit per merchant, the rest of A's; those left over stayed pending, and nobody claims one twice.
    expect(named(await log.claimDue(now, 30_000, 10, ANY_MERCHANT))).toEqual(['A3', 'A4', 'A5', 'A6']);
    expect(named(await log.claimDue(now, 30_000, 10, ANY_MERCHANT))).toEqual([]);
    expect((await log.list(a!, 10)).every((d) => d.state === 'pending')).toBe(true);
  });
});

describe('claimDue on PostgreSQL, two instances claiming at the same moment', () => {
  it('hands each due delivery to exactly one of them', async () => {
    const url = await freshDatabase();
    const one = await createSandbox({ store: 'postgres', url, scheduler: false });
    const two = await createSandbox({ store: 'postgres', url, scheduler: false });
    try {
      const later = Date.now() + 86_400_000;
      const ids: string[] = [];
      for (let m = 0; m < 4; m++) {
        const payeeId = (await one.control.enroll({ name: `Twin Shop ${m}` })).payeeId;
        const batch = Array.from({ length: 10 }, (_, i): Delivery => {
          const id = `whd_twin_${m}_${i}`;
          ids.push(id);
          return {
            id, payeeId, eventId: `evt_twin_${m}_${i}`, eventType: 'payment.created', paymentId: `pay_twin_${m}_${i}`, url: 'http://127.0.0.1:9/x',
            body: '{}', state: 'pending', attempts: [], attempt: 0, nextAttemptAt: later + i, createdAt: Date.now(),
          };
        });
        await one.services.store.deliveries.record(batch);
      }
      const claimedBy = (s: Sandbox) => s.services.store.deliveries.claimDue(later + 1_000, 30_000, 3, { perMerchant: 4, inFlight: new Map() });
      const seen: string[] = [];
      for (let round = 0; round < 20 && seen.length < ids.length; round++) {
        const [a, b] = await Promise.all([claimedBy(one), claimedBy(two)]);
        seen.push(...a.map((d) => d.id), ...b.map((d) => d.id));
      }
      expect(seen.length).toBe(ids.length);
      expect(new Set(seen).size).toBe(ids.length);
    } finally {
      await one.close();
      await two.close();
    }
  });
});
