/** `payreq-sandbox readiness`: the checklist in a terminal and as JUnit, exit 1 until every required check passes. */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../support/files.js';
import { listeningSandbox } from '../support/http.js';
import { CLI } from '../support/processes.js';

const run = promisify(execFile);
afterAll(removeTempDirs);

async function readiness(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, 'readiness', ...args]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('payreq-sandbox readiness', () => {
  const live = listeningSandbox({ scheduler: false });

  it('prints each check with its status, writes one JUnit testcase per check, and exits 1 when not ready', async () => {
    const merchant = await live.sandbox.control.enroll({ name: 'CLI Shop' });
    const junit = path.join(tempDir(), 'readiness.xml');
    const result = await readiness(['--base-url', live.server.url, '--key', merchant.apiKey, '--junit', junit]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^NOT TRIED\s+create\s+required/m);
    expect(result.stdout).toMatch(/^NOT TRIED\s+webhook\s+optional/m);
    expect(result.stdout).toContain('not ready: a required check does not pass');
    const xml = readFileSync(junit, 'utf8');
    expect(xml.match(/<testcase /g)).toHaveLength(14);
    expect(xml).toMatch(/<testcase name="create" classname="readiness" >\s*<failure message="not_tried: /);
    expect(xml).toMatch(/<testcase name="webhook" classname="readiness" >\s*<skipped /);
  });

  it('creates the folder of --junit, and --json prints the report itself', async () => {
    const merchant = await live.sandbox.control.enroll({ name: 'CLI Shop JSON' });
    const junit = path.join(tempDir(), 'reports', 'nested', 'readiness.xml');
    const result = await readiness(['--base-url', live.server.url, '--key', merchant.apiKey, '--junit', junit, '--json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { ready: boolean; checks: { id: string; status: string }[] };
    expect(report.ready).toBe(false);
    expect(report.checks.find((c) => c.id === 'create')?.status).toBe('not_tried');
    expect(readFileSync(junit, 'utf8')).toContain('<testsuites name="payreq-sandbox readiness"');
  });

  it('exits 2, not 1, when the JUnit report cannot be written', async () => {
    const merchant = await live.sandbox.control.enroll({ name: 'CLI Shop unwritable' });
    const file = path.join(tempDir(), 'a-file');
    writeFileSync(file, 'not a folder');
    const result = await readiness(['--base-url', live.server.url, '--key', merchant.apiKey, '--junit', path.join(file, 'readiness.xml')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/could not write the JUnit report .*a-file\/readiness\.xml/);
  });

  it('exits 2 and says why when the report cannot be had (a wrong key)', async () => {
    const result = await readiness(['--base-url', live.server.url, '--key', 'sk_sandbox_wrong']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/answered 401/);
  });
});
