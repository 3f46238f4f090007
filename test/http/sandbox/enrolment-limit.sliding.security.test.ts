/**
 * SPEC 15: "SANDBOX_ENROLL_LIMIT, default 10 per minute" holds for any minute, not per calendar
 * minute: a burst on either side of a minute boundary does not pass twice the limit. The limiter
 * reads the sandbox's injected clock, so these tests move it instead of sleeping.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox, SandboxConfig } from '../../../src/index.js';
import { memorySandbox } from '../../helpers.js';

/** 2026-01-05 09:00:58.600 UTC: 1.4 s before a minute boundary. */
const START = Date.UTC(2026, 0, 5, 9, 0, 58, 600);

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function live(config: Partial<SandboxConfig>) {
  const clock = { now: START };
  sandbox = await memorySandbox({ clock: () => clock.now, config });
  const server = await sandbox.listen(0, '127.0.0.1');
  const enroll = async () => {
    const res = await fetch(`${server.url}/sandbox/v1/merchants`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    const body = (await res.json()) as { code: number; description: string };
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body };
  };
  return { clock, enroll };
}

describe('the enrolment limit slides', () => {
  it('SANDBOX_ENROLL_LIMIT=3: 3 at hh:mm:58.6, then 3 at hh:mm+1:00.3 are refused with the real wait; a retry after it passes, one a second earlier does not', async () => {
    const { clock, enroll } = await live({ enrollLimitPerMinute: 3 });
    for (let i = 0; i < 3; i++) {
      expect((await enroll()).status).toBe(200);
      clock.now += 100;
    }
    clock.now = START + 1_700; // hh:mm+1:00.3
    for (let i = 0; i < 3; i++) {
      const refused = await enroll();
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe(429);
      // The first one leaves the minute at hh:mm+1:58.6, 58.3 s from now.
      expect(refused.retryAfter).toBe('59');
      expect(refused.body.description).toMatch(/3 merchants per minute from one client; retry after 59 s/);
    }
    clock.now += 58_000;
    expect((await enroll()).status).toBe(429);
    clock.now += 1_000;
    expect((await enroll()).status).toBe(200);
  });

  it('the default 10: of 20 attempts over 9 s across a minute boundary, 10 pass; no minute ever passes more than 10', async () => {
    const { clock, enroll } = await live({ enrollLimitPerMinute: 10 });
    const passed: number[] = [];
    let statuses = '';
    for (let i = 0; i < 20; i++) {
      const answer = await enroll();
      if (answer.status === 200) passed.push(clock.now);
      statuses += answer.status === 200 ? '.' : 'x';
      clock.now += 450;
    }
    expect(statuses).toBe(`${'.'.repeat(10)}${'x'.repeat(10)}`);
    // Then a client that honours Retry-After, for three minutes: each wait it is told is enough.
    const end = clock.now + 180_000;
    let toldToWait = false;
    while (clock.now < end) {
      const answer = await enroll();
      if (toldToWait) expect(answer.status).toBe(200);
      toldToWait = answer.status === 429;
      if (answer.status === 200) {
        passed.push(clock.now);
        clock.now += 1_000;
      } else {
        expect(answer.status).toBe(429);
        clock.now += Number(answer.retryAfter) * 1000;
      }
    }
    for (const at of passed) expect(passed.filter((s) => s > at - 60_000 && s <= at).length).toBeLessThanOrEqual(10);
    expect(passed.length).toBeGreaterThanOrEqual(10 + 3 * 9);
  });
});
