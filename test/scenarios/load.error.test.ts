import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findScenarioFiles, loadScenarioFile, parseScenario, ScenarioFileError } from '../../src/scenarios/load.js';

/** The error messages of parsing `text` as file `f.yaml`. */
function problemsOf(text: string, file = 'f.yaml'): string[] {
  try {
    parseScenario(text, file);
  } catch (err) {
    expect(err).toBeInstanceOf(ScenarioFileError);
    return (err as ScenarioFileError).message.split('\n');
  }
  throw new Error('the scenario was accepted');
}

const GET = 'request: { method: GET, path: /x }';

describe('scenario loader: malformed files are rejected naming file, line, step and field', () => {
  it('a YAML syntax error names the file, line and column', () => {
    const [first] = problemsOf('name: x\nsteps:\n  - request: { method: GET, path: /x\n  - pay: p\n');
    expect(first).toMatch(/^f\.yaml:\d+:\d+: YAML syntax error: /);
  });

  it('a file that is not a mapping', () => {
    expect(problemsOf('- just\n- a list\n')).toEqual(['f.yaml: a scenario must be a mapping with name and steps, got a list']);
    expect(problemsOf('')[0]).toMatch(/must be a mapping/);
  });

  it('a file of plain text is named with its first 60 characters, not printed whole', () => {
    const text = 'root:x:0:0:root:/root:/bin/bash\n'.repeat(40);
    const [problem] = problemsOf(text);
    expect(problem).toMatch(/^f\.yaml: a scenario must be a mapping with name and steps, got "root:x:0:0:root:\/root.{30,50}\.\.\. \(\d+ characters\)$/);
    expect(problem!.length).toBeLessThan(160);
  });

  it('a missing name and missing steps are named', () => {
    const problems = problemsOf('description: nothing else\n');
    expect(problems.some((p) => /field name: /.test(p))).toBe(true);
    expect(problems.some((p) => /field steps: /.test(p))).toBe(true);
  });

  it('an empty list of steps', () => {
    expect(problemsOf('name: x\nsteps: []\n')).toEqual(['f.yaml:2:8: field steps: a scenario needs at least one step']);
  });

  it('an unknown top-level key', () => {
    expect(problemsOf(`name: x\nstep:\n  - ${GET}\nsteps:\n  - ${GET}\n`)).toEqual(['f.yaml:1:1: unknown key "step"']);
  });

  it('a step with no kind lists the kinds, with a hint for a near miss', () => {
    const [problem] = problemsOf('name: x\nsteps:\n  - name: wait a bit\n    wait: { payment: p, status: A }\n');
    expect(problem).toMatch(/^f\.yaml:3:5: step 1 "wait a bit", a step needs one of request, enroll, pickup, pay/);
    expect(problem).toContain('did you mean "wait_for"?');
  });

  it('a step with two kinds', () => {
    expect(problemsOf('name: x\nsteps:\n  - pay: p\n    expire: p\n')).toEqual(['f.yaml:3:5: step 1, a step does one thing: it has pay and expire']);
  });

  it('a wrong type names the step and the field, at its line', () => {
    const text = `name: x\nsteps:\n  - ${GET}\n  - name: check\n    ${GET}\n    expect:\n      status: "two hundred"\n`;
    expect(problemsOf(text)).toEqual(['f.yaml:7:15: step 2 "check", field expect.status: must be a whole number or a matcher object (e.g. {oneOf: [200, 402]})']);
  });

  it('a field inside the step kind', () => {
    const problems = problemsOf('name: x\nsteps:\n  - request: { method: GET, path: no-slash }\n');
    expect(problems).toEqual(['f.yaml:3:35: step 1, field request.path: must start with "/" (it is appended to the base URL)']);
  });

  it('a missing required field of a step kind', () => {
    const [problem] = problemsOf('name: x\nsteps:\n  - advance_clock: {}\n');
    expect(problem).toMatch(/^f\.yaml:3:\d+: step 1, field advance_clock\.seconds: /);
  });

  it('an unknown matcher key, with a hint', () => {
    const text = `name: x\nsteps:\n  - ${GET}\n    expect:\n      body:\n        payment_id: { regex: "^pay_" }\n`;
    expect(problemsOf(text)).toEqual(['f.yaml:6:21: step 1, field expect.body.payment_id: unknown key "regex" (did you mean "matches"?)']);
  });

  it('an unknown key in expect', () => {
    const text = `name: x\nsteps:\n  - ${GET}\n    expect: { status_code: 200 }\n`;
    expect(problemsOf(text)).toEqual(['f.yaml:4:13: step 1, field expect: unknown key "status_code" (did you mean "status"?)']);
  });

  it('a bad regular expression is caught when loading, not when the step runs', () => {
    const text = `name: x\nsteps:\n  - ${GET}\n    expect: { description: "([unclosed" }\n`;
    expect(problemsOf(text)[0]).toMatch(/^f\.yaml:4:\d+: step 1, field expect\.description: not a valid regular expression/);
  });

  it('a bad body path and a bad capture path', () => {
    const text = `name: x\nsteps:\n  - ${GET}\n    expect:\n      body:\n        "a..b": 1\n    capture: { id: "$.x[" }\n`;
    const problems = problemsOf(text);
    expect(problems.some((p) => /field expect\.body\.a\.\.b: bad path "a\.\.b"/.test(p))).toBe(true);
    expect(problems.some((p) => /field capture\.id: bad path/.test(p))).toBe(true);
  });

  it('a bad variable name in capture', () => {
    const text = `name: x\nsteps:\n  - ${GET}\n    capture: { "payment-id": $.payment_id }\n`;
    expect(problemsOf(text)[0]).toMatch(/field capture\.payment-id: must be a name of letters, digits and "_"/);
  });

  it('body and raw_body together', () => {
    expect(problemsOf('name: x\nsteps:\n  - request: { method: POST, path: /x, body: {}, raw_body: "{}" }\n')[0]).toMatch(
      /step 1, field request: give body or raw_body, not both/,
    );
  });

  it('every bad step is reported, not only the first', () => {
    const text = 'name: x\nsteps:\n  - pay: 5\n  - request: { method: GET }\n  - settle_all: { now: true }\n';
    const problems = problemsOf(text);
    expect(problems.map((p) => /step (\d)/.exec(p)?.[1])).toEqual(['1', '2', '3']);
  });

  it('JSON files are read, and their errors located too', () => {
    const text = '{\n  "name": "x",\n  "steps": [\n    { "request": { "method": "GET", "path": 7 } }\n  ]\n}\n';
    expect(problemsOf(text, 'f.json')).toEqual(['f.json:4:45: step 1, field request.path: Invalid input: expected string, received number']);
  });

  it('a valid file loads with each step reduced to its kind and spec', () => {
    const scenario = parseScenario(`name: ok\nsteps:\n  - name: look\n    ${GET}\n    expect: { status: 200 }\n  - pay: { payment: p, payer: bob }\n`, 'f.yaml');
    expect(scenario.steps).toEqual([
      { kind: 'request', spec: { method: 'GET', path: '/x' }, name: 'look', expect: { status: 200 } },
      { kind: 'pay', spec: { payment: 'p', payer: 'bob' } },
    ]);
  });
});

describe('scenario files on disk', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'scenarios-'));
    await writeFile(join(dir, 'b.yaml'), `name: b\nsteps:\n  - ${GET}\n`);
    await writeFile(join(dir, 'a.json'), JSON.stringify({ name: 'a', steps: [{ request: { method: 'GET', path: '/x' } }] }));
    await writeFile(join(dir, 'scenario.schema.json'), '{}');
    await writeFile(join(dir, 'notes.txt'), 'not a scenario');
    await writeFile(join(dir, 'broken.yml'), 'name: [');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('a folder gives its .yaml, .yml and .json files, sorted, without the JSON Schema', async () => {
    const files = await findScenarioFiles([dir]);
    expect(files.map((f) => f.slice(dir.length + 1))).toEqual(['a.json', 'b.yaml', 'broken.yml']);
  });

  it('a missing path is an error', async () => {
    await expect(findScenarioFiles([join(dir, 'nope')])).rejects.toThrow(/no such file or folder/);
  });

  it('a broken file names its path', async () => {
    const err = await loadScenarioFile(join(dir, 'broken.yml')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScenarioFileError);
    expect((err as ScenarioFileError).message).toContain('broken.yml:1:');
  });
});
