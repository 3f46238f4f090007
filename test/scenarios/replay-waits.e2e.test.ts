/**
 * Issue 17: `payreq-sandbox replay --base-url` tells what it waits for. A child process replays
 * against a listening sandbox whose enrolment limit (1 a minute) this client has just used: the
 * replay prints one line on stderr naming the wait and its length, waits it out, and passes.
 */
import { execFile } from 'node:child_process';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { parseScenario, replayScenarios } from '../../src/scenarios/index.js';
import type { ReplayWait } from '../../src/scenarios/index.js';
import { memorySandbox } from '../helpers.js';
import { CLI } from '../support/processes.js';

const run = promisify(execFile);
const scenario = fileURLToPath(new URL('../../scenarios/happy-path-p-w-a.yaml', import.meta.url));

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/**
 * Real time as the sandbox sees it: it stands 58.5 s after `base` from the moment the test's own
 * enrolment is in, and runs again from the first refusal, so the replay is told to wait 2 s
 * whatever its start-up takes.
 */
function limitClock() {
  const base = Date.now();
  const state: { phase: 'first' | 'frozen' | 'running'; since: number } = { phase: 'first', since: 0 };
  const clock = () => (state.phase === 'first' ? base : state.phase === 'frozen' ? base + 58_500 : base + 58_500 + (Date.now() - state.since));
  return { clock, freeze: () => (state.phase = 'frozen'), run: () => state.phase === 'frozen' && Object.assign(state, { phase: 'running', since: Date.now() }) };
}

/**
 * A listening sandbox with an enrolment limit of `limit` a minute; this client (127.0.0.1) has
 * just used one of them. Its URL.
 */
async function limitUsedUp(limit = 1): Promise<string> {
  const time = limitClock();
  sandbox = await memorySandbox({ clock: time.clock, config: { enrollLimitPerMinute: limit } });
  const windows = sandbox.services.store.rateWindows;
  const take = windows.take.bind(windows);
  windows.take = async (...args) => {
    const wait = await take(...args);
    if (wait > 0) time.run();
    return wait;
  };
  const server = await sandbox.listen(0, '127.0.0.1');
  const mine = await fetch(`${server.url}/sandbox/v1/merchants`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  expect(mine.status).toBe(200);
  time.freeze();
  return server.url;
}

describe('replay --base-url against an enrolment limit', () => {
  it('prints one line on stderr naming the wait and its length, then enrolls and passes', async () => {
    const url = await limitUsedUp();

    const started = Date.now();
    const { stdout, stderr } = await run(process.execPath, [CLI, 'replay', scenario, '--base-url', url, '--no-color'], { timeout: 30_000 });
    const lines = stderr.split('\n').filter(Boolean);
    expect(lines, stderr).toEqual([
      `replay: waiting 2 s (Retry-After) before enrolling the file's merchant of ${relative(process.cwd(), scenario)}: the sandbox answered 429 "Enrolment limit reached" (SANDBOX_ENROLL_LIMIT=0 on the server turns the enrolment limit off; it is off by default on a loopback address)`,
    ]);
    expect(stdout).toMatch(/1 scenario file: 1 passed/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect((await sandbox!.services.store.merchantIds()).length).toBe(2 + 2);
  }, 40_000);

  it('with --reporter json, the wait goes to stderr and stdout stays one JSON report', async () => {
    const url = await limitUsedUp();
    const { stdout, stderr } = await run(process.execPath, [CLI, 'replay', scenario, '--base-url', url, '--reporter', 'json'], { timeout: 30_000 });
    expect(stderr).toMatch(/^replay: waiting 2 s \(Retry-After\) before enrolling the file's merchant of .*happy-path-p-w-a\.yaml: the sandbox answered 429 "Enrolment limit reached"/);
    expect((JSON.parse(stdout) as { passed: number }).passed).toBe(1);
  }, 40_000);
});

describe('an enroll step against the enrolment limit (the library, onWait)', () => {
  const withEnrollStep = parseScenario('name: enroll step\nsteps:\n  - name: enroll another\n    enroll: { as: other }\n', 'enroll-step.yaml');

  it('waits the 429 out like the file\'s own enrolment, and tells onWait', async () => {
    const url = await limitUsedUp(2);
    const waits: ReplayWait[] = [];
    const report = await replayScenarios([{ file: 'enroll-step.yaml', scenario: withEnrollStep }], { baseUrl: url, onWait: (w) => waits.push(w) });
    expect(report.failed).toBe(0);
    expect(waits).toEqual([{ file: 'enroll-step.yaml', before: 'step 1 (enroll another)', reason: 'Enrolment limit reached', seconds: 2 }]);
  }, 20_000);

});
