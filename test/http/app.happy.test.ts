import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { call, expectEnvelope, quietSandbox } from '../support/http.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await quietSandbox();
});
afterAll(() => sandbox.close());

describe('GET /healthz', () => {
  it('answers 200 without a key and names the store', async () => {
    const answer = await call(sandbox, 'GET', '/healthz', { key: null });
    expectEnvelope(answer, 200);
    expect(answer.body.store).toBe(sandbox.services.store.kind);
  });

  it('answers 200 with any key too, known or not', async () => {
    expectEnvelope(await call(sandbox, 'GET', '/healthz', { key: 'sk_sandbox_nonsense' }), 200);
  });
});
