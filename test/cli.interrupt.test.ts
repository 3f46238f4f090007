/**
 * Ctrl-C during `payreq-sandbox replay --junit F` (a real SIGINT to the process): the summary of
 * the files that ran is printed, the JUnit file is written with them (the file cut short as
 * skipped), and the exit code is 130.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from './support/files.js';
import { CLI } from './support/processes.js';
import { until } from './support/until.js';

afterAll(removeTempDirs);

const quick = (name: string) => `name: ${name}
steps:
  - name: create
    request:
      method: POST
      path: /openapi/v1/payments/payment
      body: { payee: "{{payee_id}}", product_type: QR_DYNAMIC, merchant_ref_no: "{{fresh_ref}}", amount: 5.00 }
    expect: { status: 200 }
`;

// Held 60 s by a latency fault: Ctrl-C comes while it runs.
const slow = `name: slow
steps:
  - name: a status read held a minute
    timeout_ms: 120000
    request:
      method: GET
      path: /openapi/v1/payments/payment/pay_0000000000000000000000
      headers: { Sandbox-Fault: "latency=60000" }
    expect: { status: 404 }
`;

describe('Ctrl-C during replay --junit', () => {
  it('prints the summary so far, writes the JUnit file with what ran, exits 130', async () => {
    const dir = tempDir('interrupted-replay-');
    writeFileSync(join(dir, 'a-quick.yaml'), quick('first quick'));
    writeFileSync(join(dir, 'b-quick.yaml'), quick('second quick'));
    writeFileSync(join(dir, 'c-slow.yaml'), slow);
    writeFileSync(join(dir, 'd-never.yaml'), quick('never started'));
    const junit = join(dir, 'reports', 'replay.xml');
    const child = spawn(process.execPath, [CLI, 'replay', dir, '--concurrency', '1', '--junit', junit, '--no-color'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Both quick files reported: the slow one is running now.
    await until(() => (/second quick/.test(stdout) ? true : undefined), `the quick files to finish:\n${stdout}\n${stderr}`, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const sentAt = Date.now();
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(Date.now() - sentAt).toBeLessThan(5_000);

    expect(stdout).toMatch(/2 scenario files: 2 passed; 2 steps in/);
    expect(stdout).toMatch(/interrupted: 2 files finished, 1 cut short, 1 not started/);
    expect(stdout).toMatch(/cut short: .*c-slow\.yaml/);
    expect(stdout).toContain(`JUnit report: ${junit}`);
    expect(stdout).not.toMatch(/never started/);

    expect(existsSync(junit)).toBe(true);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuites name="payreq-sandbox replay" tests="3" failures="0" errors="0" skipped="1"/);
    expect(xml).toMatch(/<testcase name="first quick"/);
    expect(xml).toMatch(/<testcase name="second quick"/);
    expect(xml).toMatch(/<testcase name="[^"]*c-slow\.yaml"[^>]*>\s*<skipped message="interrupted \(SIGINT\) before this file finished"\/>/);
    expect(xml).not.toMatch(/never started|d-never/);
  }, 40_000);
});
