/**
 * The scale workload of the bench (bench/scale.js, SPEC 19 "Scale") runs, through the same
 * function `npm run bench -- --scale` calls, at 20 merchants for 2 seconds: real `serve`
 * processes from dist/ (npm run build first), the file store and one instance, or with
 * SANDBOX_TEST_STORE=postgres two instances on one database.
 */
import { describe, expect, it } from 'vitest';
import { runScale } from '../../bench/scale.js';
import type { ScaleOptions } from '../../bench/scale.js';
import { freshDatabase } from '../support/databases.js';

const onPostgres = process.env.SANDBOX_TEST_STORE === 'postgres';

describe(`the scale workload, 20 merchants for 2 s (${onPostgres ? 'PostgreSQL, 2 instances' : 'file store'})`, () => {
  it('drives creates and polls over every merchant, counts the limited keys 429s, and finds no error and no broken limit', async () => {
    const options: ScaleOptions = {
      merchants: 20,
      // 4 of the 20 limited to 2 a second; each flow sends 4 requests within ~300 ms, so each is refused some.
      limitedEvery: 5,
      limit: 2,
      rate: 100,
      duration: 2,
      warmup: 0,
      ...(onPostgres ? { postgres: { freshDatabase: () => freshDatabase() } } : {}),
    };
    const r = await runScale(options);

    expect(r.problems).toEqual([]);
    expect(r.store).toBe(onPostgres ? 'postgres' : 'file');
    expect(r.instances).toBe(onPostgres ? 2 : 1);
    expect(r.errors).toBe(0);
    // 25 flows a second for 2 s: every merchant had a turn, with a create and its polls.
    expect(r.flows).toBeGreaterThanOrEqual(20);
    expect(r.statuses.create['200']).toBeGreaterThanOrEqual(20);
    expect(r.statuses.poll['200']).toBeGreaterThan(0);
    expect(r.requests).toBe(Object.values(r.statuses.create).reduce((a, b) => a + b, 0) + Object.values(r.statuses.poll).reduce((a, b) => a + b, 0));
    // Each merchant's requests alternate between the instances.
    expect(r.perInstance.every((n) => n > 0)).toBe(true);
    expect(r.limited.merchants).toBe(4);
    expect(r.limited.refused429).toBeGreaterThan(0);
    expect(r.limited.refused429).toBe((r.statuses.create['429'] ?? 0) + (r.statuses.poll['429'] ?? 0));
    expect(r.limited.mostAdmittedWithinASecond).toBeGreaterThanOrEqual(1);
    expect(r.limited.mostAdmittedWithinASecond).toBeLessThanOrEqual(2);
    for (const kind of ['create', 'poll'] as const) {
      expect(r.latency[kind].count).toBeGreaterThan(0);
      expect(r.latency[kind].p50).toBeGreaterThan(0);
      expect(r.latency[kind].p99!).toBeGreaterThanOrEqual(r.latency[kind].p50!);
    }
    expect(r.rss.startMB).toBeGreaterThan(10);
    expect(r.rss.peakMB).toBeGreaterThanOrEqual(r.rss.startMB);
    expect(r.rss.endMB).toBeGreaterThan(0);
    expect(r.cpuUsPerReq).toBeGreaterThan(0);
  }, 60_000);
});
