import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replay } from '../../src/scenarios/replay.js';
import type { ReplayReport } from '../../src/scenarios/replay.js';
import { replayCommand } from '../../src/scenarios/replay-command.js';

const CREATE = `
    request:
      method: POST
      path: /openapi/v1/payments/payment
      body: { payee: "{{payee_id}}", product_type: QR_DYNAMIC, merchant_ref_no: "{{fresh_ref}}", amount: 10.00 }
    capture: { payment_id: $.payment_id }`;

const PASSING = `name: create and pay
steps:
  - name: create${CREATE}
  - pay: "{{payment_id}}"
  - request: { method: GET, path: "/openapi/v1/payments/payment/{{payment_id}}" }
    expect: { body: { payment_status: A } }
`;

const FAILING = `name: cancel a paid payment <expects the wrong thing>
steps:
  - name: create${CREATE}
  - pay: "{{payment_id}}"
  - name: cancel & check
    request:
      method: POST
      path: /openapi/v1/payments/payment/{{payment_id}}/cancel
      body: { reason: test }
    expect: { code: 200, description: cancelled }
  - name: never reached
    request: { method: GET, path: "/openapi/v1/payments/payment/{{payment_id}}" }
`;

const MALFORMED = `name: malformed
steps:
  - pay: "{{payment_id}}"
    expect: { status: lots }
`;

const TEMPLATE_ERROR = `name: uses a variable nobody set
steps:
  - request: { method: GET, path: "/openapi/v1/payments/payment/{{no_such_thing}}" }
`;

function captured() {
  const lines: string[] = [];
  return { lines, output: { out: (t: string) => lines.push(t), err: (t: string) => lines.push(t) }, text: () => lines.join('\n') };
}

describe('replay runner: results, exit code, reports', () => {
  let dir: string;
  const path = (name: string) => join(dir, name);
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'replay-'));
    await writeFile(path('passing.yaml'), PASSING);
    await writeFile(path('failing.yaml'), FAILING);
    await writeFile(path('malformed.yaml'), MALFORMED);
    await writeFile(path('template-error.yaml'), TEMPLATE_ERROR);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('a passing file: every step passed, exit code 0', async () => {
    const out = captured();
    const code = await replayCommand([path('passing.yaml')], { color: false }, out.output);
    expect(code).toBe(0);
    expect(out.text()).toMatch(/PASS {2}\S*passing\.yaml {2}create and pay/);
    expect(out.text()).toMatch(/✓ 2\. pay \{\{payment_id\}\} {2}POST \/sandbox\/v1\/payments\/pay_\w+\/pay -> 200/);
    expect(out.text()).toMatch(/1 scenario file: 1 passed; 3 steps in .* against in-process sandbox/);
  });

  it('one step is "1 step" in the summary', async () => {
    // A folder of its own: other tests replay this one's whole.
    const single = await mkdtemp(join(tmpdir(), 'payreq-one-step-'));
    try {
      await writeFile(join(single, 'one-step.yaml'), `name: one step\nsteps:\n  - name: create${CREATE}\n`);
      const out = captured();
      expect(await replayCommand([join(single, 'one-step.yaml')], { color: false }, out.output)).toBe(0);
      expect(out.text()).toMatch(/1 scenario file: 1 passed; 1 step in .* against in-process sandbox/);
    } finally {
      await rm(single, { recursive: true, force: true });
    }
  });

  it('a failing step stops its file; the report shows expected, actual and the body; exit code 1', async () => {
    const out = captured();
    const code = await replayCommand([path('failing.yaml'), path('passing.yaml')], { color: false }, out.output);
    expect(code).toBe(1);
    const text = out.text();
    expect(text).toMatch(/FAIL {2}\S*failing\.yaml/);
    expect(text).toContain('✗ 3. cancel & check');
    expect(text).toMatch(/code\n {10}expected: 200\n {10}actual: {3}402/);
    expect(text).toMatch(/description\n {10}expected: matches cancelled\n {10}actual: {3}"Cannot cancel payment/);
    expect(text).toContain('response body:');
    expect(text).toContain('"code": 402');
    expect(text).toContain('- 4. never reached (skipped)');
    expect(text).toMatch(/2 scenario files: 1 passed, 1 failed/);
    expect(text).toMatch(/failed: \S*failing\.yaml at step 3 "cancel & check"/);
  });

  it('the JUnit report has one testcase per file, and the failure names the step', async () => {
    const junit = path('reports/junit.xml');
    const out = captured();
    const code = await replayCommand([dir], { color: false, junit }, out.output);
    expect(code).toBe(1);
    const xml = await readFile(junit, 'utf8');
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="payreq-sandbox replay" tests="4" failures="3"')).toBe(true);
    expect(xml.match(/<testcase /g)).toHaveLength(4);
    expect(xml.match(/<failure /g)).toHaveLength(3);
    // Names are escaped: the failing scenario's name holds < > and its step an &.
    expect(xml).toContain('name="cancel a paid payment &lt;expects the wrong thing&gt;"');
    expect(xml).toMatch(/<failure message="step 3 &quot;cancel &amp; check&quot;: code: expected 200, got 402" type="AssertionError">/);
    expect(xml).toMatch(/<failure message="[^"]*malformed\.yaml:4:\d+: step 1, field expect\.status: [^"]*" type="ScenarioError">/);
    expect(xml).toMatch(/<failure message="step 1 &quot;GET \/openapi\/v1\/payments\/payment\/\{\{no_such_thing\}\}&quot;: \{\{no_such_thing\}\}: no variable no_such_thing/);
    expect(xml).toMatch(/<testcase name="create and pay" classname="[^"]*passing\.yaml" file="[^"]*passing\.yaml" time="\d+\.\d{3}">\n {6}<system-out>passed {2}1\. create/);
    expect(xml.trimEnd().endsWith('</testsuites>')).toBe(true);
    // Balanced: every opened element is closed.
    for (const tag of ['testsuites', 'testsuite', 'testcase', 'failure', 'system-out']) {
      expect(xml.match(new RegExp(`<${tag}[ >]`, 'g'))?.length, tag).toBe(xml.match(new RegExp(`</${tag}>`, 'g'))?.length);
    }
  });

  it('--reporter json prints the whole report as JSON', async () => {
    const out = captured();
    const code = await replayCommand([path('passing.yaml'), path('malformed.yaml')], { reporter: 'json' }, out.output);
    expect(code).toBe(1);
    expect(out.lines).toHaveLength(1);
    const report = JSON.parse(out.lines[0]!) as ReplayReport;
    expect(report).toMatchObject({ target: 'in-process sandbox (memory store)', passed: 1, failed: 1 });
    // Sorted by path, whatever order they were given in.
    expect(report.files.map((f) => [f.name, f.status])).toEqual([
      ['(malformed scenario file)', 'failed'],
      ['create and pay', 'passed'],
    ]);
    expect(report.files[1]!.steps.map((s) => s.status)).toEqual(['passed', 'passed', 'passed']);
    expect(report.files[1]!.payeeId).toMatch(/^payee_/);
  });

  it('files run in parallel, each with its own fresh merchant', async () => {
    await mkdir(path('parallel'));
    for (let i = 0; i < 6; i++) await writeFile(path(`parallel/${i}.yaml`), PASSING);
    const report = await replay([path('parallel')], { concurrency: 3 });
    expect(report.failed).toBe(0);
    expect(report.files).toHaveLength(6);
    expect(new Set(report.files.map((f) => f.payeeId)).size).toBe(6);
  });

  it('no scenario files is an error, not a pass', async () => {
    await mkdir(path('empty'));
    await expect(replay([path('empty')], {})).rejects.toThrow(/no scenario files/);
  });
});
