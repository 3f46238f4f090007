/** SANDBOX_RATE_LIMIT is every key's ceiling: enrolment cannot ask for no limit or a higher one (found by an outside hostile run). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { memorySandbox } from '../../helpers.js';

async function enroll(sandbox: Sandbox, body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await sandbox.fetch(new Request('http://sandbox.test/sandbox/v1/merchants', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }));
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('enrolment under an operator rate limit', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox({ config: { defaultRateLimit: 5 } });
  });
  afterAll(() => sandbox.close());

  it.each([0, 6, 100_000])('refuses rate_limit_per_second %s with 400 naming the ceiling, and enrolls nothing', async (asked) => {
    const before = (await sandbox.services.store.merchantIds()).length;
    const { status, json } = await enroll(sandbox, { name: 'Greedy Shop', rate_limit_per_second: asked });
    expect(status).toBe(400);
    expect(json.description).toBe(
      `rate_limit_per_second must be from 1 to 5 on this sandbox, got ${asked}: its operator caps every key at 5 requests per second (SANDBOX_RATE_LIMIT). Leave it out to get 5.`,
    );
    expect((await sandbox.services.store.merchantIds()).length).toBe(before);
  });

  it('takes a lower limit, and gives the ceiling when none is asked', async () => {
    expect((await enroll(sandbox, { rate_limit_per_second: 2 })).json.rate_limit_per_second).toBe(2);
    expect((await enroll(sandbox, {})).json.rate_limit_per_second).toBe(5);
  });

  it('without SANDBOX_RATE_LIMIT a merchant chooses freely', async () => {
    const open = await memorySandbox();
    try {
      expect((await enroll(open, { rate_limit_per_second: 0 })).status).toBe(200);
      expect((await enroll(open, { rate_limit_per_second: 100_000 })).json.rate_limit_per_second).toBe(100_000);
    } finally {
      await open.close();
    }
  });
});
