/**
 * SPEC 15 and 14: the rate-limit windows slide. Memory and PostgreSQL alike: no span of the
 * window ever passes more than the limit, across any boundary; a request is refused only when
 * the limit really is reached within the window before it; Retry-After is the real wait (a retry
 * after it passes, one a second earlier does not); PostgreSQL instances share one window.
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateWindows } from '../../src/store/rate-windows.js';
import type { RateWindows } from '../../src/store/rate-windows.js';
import { PostgresStore } from '../../src/store/postgres-store.js';
import { migrate, SCHEMA_VERSION } from '../../src/store/postgres-schema.js';
import { freshDatabase } from '../support/databases.js';

const MINUTE = 60_000;
/** A minute boundary: 2026-01-05 09:01:00 UTC. */
const T0 = Date.UTC(2026, 0, 5, 9, 1, 0);

const opened: PostgresStore[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
});

async function postgresStore(url?: string): Promise<PostgresStore> {
  const store = new PostgresStore({ url: url ?? (await freshDatabase()) });
  opened.push(store);
  await store.open();
  return store;
}

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** How many of `stamps` lie in the window that ends at `at`: (at - window, at]. */
const inWindow = (stamps: readonly number[], at: number, windowMs: number) => stamps.filter((s) => s > at - windowMs && s <= at).length;

const KINDS: readonly [string, () => Promise<RateWindows>][] = [
  ['memory', async () => new MemoryRateWindows()],
  ['PostgreSQL', async () => (await postgresStore()).rateWindows],
];

describe.each(KINDS)('sliding rate windows (%s)', (_kind, make) => {
  let windows: RateWindows;
  beforeAll(async () => {
    windows = await make();
  });

  it('the reported burst: 3 a minute, 3 passed at hh:mm:58.6, then 3 at hh:mm+1:00.3 are all refused, for 59 s', async () => {
    const key = 'enroll:burst';
    const passed = [];
    for (const at of [-1400, -1300, -1200]) passed.push(await windows.take(key, 3, MINUTE, T0 + at));
    expect(passed).toEqual([0, 0, 0]);
    const refused = [];
    for (const at of [300, 301, 302]) refused.push(await windows.take(key, 3, MINUTE, T0 + at));
    // The first of the three leaves at 01:58.6: 58.3 s after 01:00.3, told as 59.
    expect(refused).toEqual([59, 59, 59]);
    expect(await windows.take(key, 3, MINUTE, T0 + 300 + 58_000)).toBe(1);
    expect(await windows.take(key, 3, MINUTE, T0 + 300 + 59_000)).toBe(0);
  });

  it('no span of a minute ever passes more than the limit, and nothing is refused while the window has room', async () => {
    const limit = 10;
    const next = random(20261105);
    const passed: number[] = [];
    let at = T0 - 3 * MINUTE;
    // Bursts around minute boundaries and quiet stretches, for five minutes.
    for (let i = 0; i < 260; i++) {
      at += next() < 0.25 ? Math.floor(next() * 20_000) : Math.floor(next() * 600);
      const peeked = await windows.wait('enroll:random', limit, MINUTE, at);
      const wait = await windows.take('enroll:random', limit, MINUTE, at);
      // wait() answers what take() then does, without counting anything itself.
      expect(wait).toBe(peeked);
      const before = inWindow(passed, at, MINUTE);
      if (wait === 0) {
        passed.push(at);
        expect(before).toBeLessThan(limit);
      } else {
        expect(before).toBe(limit);
        // The real wait: until the oldest of the last `limit` passed leaves the window.
        const oldest = passed[passed.length - limit]!;
        expect(wait).toBe(Math.max(1, Math.ceil((oldest + MINUTE - at) / 1000)));
      }
    }
    for (const s of passed) expect(inWindow(passed, s, MINUTE)).toBeLessThanOrEqual(limit);
    // Enough passed that the bound was reached many times.
    expect(passed.length).toBeGreaterThan(3 * limit);
  });

  it('Retry-After is honest: a retry after it passes, one a second earlier is refused', async () => {
    const next = random(7);
    for (let round = 0; round < 12; round++) {
      const key = `honest:${round}`;
      const limit = 1 + Math.floor(next() * 4);
      let at = T0 + Math.floor(next() * MINUTE);
      for (let i = 0; i < limit; i++) {
        expect(await windows.take(key, limit, MINUTE, at)).toBe(0);
        at += Math.floor(next() * 9_000);
      }
      const wait = await windows.take(key, limit, MINUTE, at);
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);
      if (wait > 1) expect(await windows.take(key, limit, MINUTE, at + (wait - 1) * 1000)).toBeGreaterThan(0);
      expect(await windows.take(key, limit, MINUTE, at + wait * 1000)).toBe(0);
    }
  });

  it('per second: two passed late in one second leave no room early in the next; a second after them there is', async () => {
    const key = 'merchant:M1';
    const second = T0 + 5_000;
    expect(await windows.take(key, 2, 1000, second + 900)).toBe(0);
    expect(await windows.take(key, 2, 1000, second + 950)).toBe(0);
    expect(await windows.take(key, 2, 1000, second + 1_100)).toBe(1);
    expect(await windows.take(key, 2, 1000, second + 1_899)).toBe(1);
    expect(await windows.take(key, 2, 1000, second + 1_900)).toBe(0);
    expect(await windows.take(key, 2, 1000, second + 1_920)).toBe(1);
    expect(await windows.take(key, 2, 1000, second + 1_950)).toBe(0);
  });

  it('refused requests are not counted: a client hammering through its wait is not held back longer', async () => {
    const key = 'merchant:hammer';
    expect(await windows.take(key, 1, 1000, T0)).toBe(0);
    for (let at = T0 + 50; at < T0 + 1000; at += 50) expect(await windows.take(key, 1, 1000, at)).toBe(1);
    expect(await windows.take(key, 1, 1000, T0 + 1000)).toBe(0);
  });

  it('a limit lowered while the window holds more than it waits for the newest of the new limit to leave', async () => {
    const key = 'merchant:lowered';
    for (let i = 0; i < 5; i++) expect(await windows.take(key, 5, 1000, T0 + i * 100)).toBe(0);
    expect(await windows.take(key, 2, 1000, T0 + 500)).toBe(1);
    // The newest two passed at +300 and +400: room once +300 has left, at +1300.
    expect(await windows.take(key, 2, 1000, T0 + 1_299)).toBe(1);
    expect(await windows.take(key, 2, 1000, T0 + 1_300)).toBe(0);
  });

  it('wait() counts nothing: asked any number of times, the window keeps its room', async () => {
    const key = 'admin-token:peek';
    for (let i = 0; i < 5; i++) expect(await windows.wait(key, 2, MINUTE, T0 + i)).toBe(0);
    expect(await windows.take(key, 2, MINUTE, T0 + 10)).toBe(0);
    expect(await windows.wait(key, 2, MINUTE, T0 + 11)).toBe(0);
    expect(await windows.take(key, 2, MINUTE, T0 + 12)).toBe(0);
    expect(await windows.wait(key, 2, MINUTE, T0 + 13)).toBe(60);
    expect(await windows.wait(key, 2, MINUTE, T0 + 10 + MINUTE)).toBe(0);
  });
});

describe('PostgreSQL: one window for every instance', () => {
  it('concurrent requests through three instances pass exactly the limit', async () => {
    const url = await freshDatabase();
    const instances = await Promise.all([postgresStore(url), postgresStore(url), postgresStore(url)]);
    const waits = await Promise.all(Array.from({ length: 30 }, (_, i) => instances[i % 3]!.rateWindows.take('enroll:shared', 7, MINUTE, T0 + i)));
    expect(waits.filter((w) => w === 0)).toHaveLength(7);
    expect(await instances[0]!.rateWindows.take('enroll:shared', 7, MINUTE, T0 + MINUTE + 6)).toBe(0);
  }, 30_000);

  it('a version-2 database is migrated to the sliding windows, and its fixed-window rows still work', async () => {
    const url = await freshDatabase();
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await migrate(admin, 'test', 2);
      await admin`INSERT INTO payreq_rate_windows (key, slot, count) VALUES ('enroll:old', 1, 10)`;
    } finally {
      await admin.end();
    }
    const store = await postgresStore(url);
    expect(await store.run((sql) => sql`SELECT version FROM payreq_schema`)).toEqual([{ version: SCHEMA_VERSION }]);
    // Version 3 brought the sliding windows; later versions keep them.
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(3);
    expect(await store.rateWindows.take('enroll:old', 1, MINUTE, T0)).toBe(0);
    expect(await store.rateWindows.take('enroll:old', 1, MINUTE, T0 + 1)).toBe(60);
    // A version-2 instance still running writes the columns it knows, and keeps working.
    await store.run((sql) => sql`INSERT INTO payreq_rate_windows AS w (key, slot, count) VALUES ('enroll:v2', 1, 1) ON CONFLICT (key) DO UPDATE SET count = w.count + 1`);
    expect(await store.rateWindows.take('enroll:v2', 1, MINUTE, T0)).toBe(0);
  }, 30_000);
});

describe('memory: keys whose requests have all left are dropped', () => {
  it('a client address seen once is forgotten after enough other takes', async () => {
    const windows = new MemoryRateWindows();
    await windows.take('enroll:once', 1, MINUTE, T0);
    for (let i = 0; i < 10_000; i++) await windows.take(`enroll:${i % 3}`, 1_000_000, MINUTE, T0 + MINUTE + i);
    expect((windows as unknown as { logs: Map<string, unknown> }).logs.has('enroll:once')).toBe(false);
  });
});
