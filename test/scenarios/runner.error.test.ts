import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import type { Sandbox } from '../../src/index.js';
import { parseScenario } from '../../src/scenarios/load.js';
import { replayScenarios } from '../../src/scenarios/replay.js';
import type { FileResult } from '../../src/scenarios/run-scenario.js';

const CREATE = `
  - request:
      method: POST
      path: /openapi/v1/payments/payment
      body: { payee: "{{payee_id}}", product_type: QR_DYNAMIC, merchant_ref_no: "{{fresh_ref}}", amount: 10.00 }
    capture: { payment_id: $.payment_id }`;

describe('replay runner: steps that fail, and why', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ store: 'memory', scheduler: false });
  });
  afterAll(() => sandbox.close());

  async function run(yaml: string): Promise<FileResult> {
    const report = await replayScenarios([{ file: 't.yaml', scenario: parseScenario(yaml, 't.yaml') }], { sandbox });
    return report.files[0]!;
  }

  it('wait_for fails after its bound, naming the last status', async () => {
    const result = await run(`name: w\nsteps:${CREATE}\n  - wait_for: { payment: "{{payment_id}}", status: [A, F], within_ms: 150, every_ms: 50 }\n`);
    const step = result.steps[1]!;
    expect(step.status).toBe('failed');
    expect(step.failures[0]).toMatchObject({ target: 'payment_status', expected: 'A or F within 150 ms', actual: expect.stringMatching(/^payment_status "P" after \d+ polls$/) });
  });

  it('a sandbox action is expected to answer code 200 unless the step says otherwise', async () => {
    const result = await run(`name: s\nsteps:${CREATE}\n  - settle: "{{payment_id}}"\n`);
    expect(result.steps[1]!.failures).toEqual([expect.objectContaining({ target: 'code', expected: '200', actual: '402' })]);
    const allowed = await run(`name: s\nsteps:${CREATE}\n  - settle: "{{payment_id}}"\n    expect: { code: 402 }\n`);
    expect(allowed.status).toBe('passed');
  });

  it('acting as a merchant nobody enrolled', async () => {
    const result = await run(`name: a\nsteps:\n  - as: ghost\n    request: { method: GET, path: /sandbox/v1/payments }\n`);
    expect(result.steps[0]!.error).toMatch(/as: no merchant "ghost": enroll it first/);
  });

  it('a capture that finds nothing fails its step', async () => {
    const result = await run(`name: c\nsteps:\n  - request: { method: GET, path: /sandbox/v1/clock }\n    capture: { id: $.payment_id }\n`);
    expect(result.steps[0]!.error).toBe('capture id: the response body has nothing at $.payment_id');
  });

  it('captures from headers, and enrolled merchants as variables', async () => {
    const result = await run(`name: h
steps:
  - enroll: { as: shop2, home_currency: USD }
  - as: shop2
    request:
      method: POST
      path: /openapi/v1/payments/payment
      body: { payee: "{{shop2.payee_id}}", product_type: QR_DYNAMIC, merchant_ref_no: "{{fresh_ref}}", amount: 1.00, colour: red }
    capture: { warning: { header: Sandbox-Warning }, id: $.payment_id }
  - as: shop2
    request: { method: GET, path: "/openapi/v1/payments/payment/{{id}}" }
    expect:
      body: { original_currency_code: "{{shop2.home_currency}}", payee.id: "{{shop2.payee_id}}" }
  - request: { method: GET, path: "/sandbox/v1/payments", headers: { X-Note: "{{warning}}" } }
    expect:
      body: { total: 0 }
`);
    expect(result.status, JSON.stringify(result.steps)).toBe('passed');
  });

  it('a vars template that fails stops the file before its steps', async () => {
    const result = await run(`name: v\nvars: { x: "{{env.PAYREQ_TEST_UNSET_VARIABLE}}" }\nsteps:\n  - reset: {}\n`);
    expect(result).toMatchObject({ status: 'failed', steps: [], error: expect.stringMatching(/^vars: .*PAYREQ_TEST_UNSET_VARIABLE is not set/) });
  });
});
