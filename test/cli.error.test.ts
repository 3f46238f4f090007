import { execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../src/serve-command.js';
import { toEmvPayload } from '../src/domain/emv.js';
import { CLI } from './support/processes.js';

const run = promisify(execFile);

describe('configuration errors', () => {
  it('refuses an unknown SANDBOX_HTTP_STATUS', () => {
    expect(() => configFromEnv({ SANDBOX_HTTP_STATUS: 'always-201' })).toThrow(/mirror-code or always-200/);
  });

  it.each(['-1', '2.5', 'fast'])('refuses SANDBOX_RATE_LIMIT=%s', (value) => {
    expect(() => configFromEnv({ SANDBOX_RATE_LIMIT: value })).toThrow(/SANDBOX_RATE_LIMIT/);
  });

  it.each(['0', '-5', 'lots', 'Infinity'])('refuses SANDBOX_STORAGE_MB and SANDBOX_MERCHANT_STORAGE_MB=%s, saying what fits', (value) => {
    expect(() => configFromEnv({ SANDBOX_STORAGE_MB: value })).toThrow(`SANDBOX_STORAGE_MB must be a positive number of MB (MiB, e.g. 64 or 0.5), got ${value}`);
    expect(() => configFromEnv({ SANDBOX_MERCHANT_STORAGE_MB: value })).toThrow(/^SANDBOX_MERCHANT_STORAGE_MB must be a positive number/);
  });
});

describe('payreq-sandbox qr decode on a bad payload', () => {
  it('reports the CRC mismatch and exits 1', async () => {
    const payload = toEmvPayload({
      payeeId: 'DEMO-MERCHANT-1', mcc: '5812', currencyNumeric: '702', amount: '10.50', countryCode: 'SG', merchantName: 'Demo', merchantCity: 'Singapore', paymentCode: 'ABCD2345WXYZ',
    });
    const broken = `${payload.slice(0, -4)}${payload.endsWith('0000') ? '0001' : '0000'}`;
    const failure = await run(process.execPath, [CLI, 'qr', 'decode', broken]).then(
      () => undefined,
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stdout).toContain('CRC: INVALID');
    expect(failure?.stderr).toContain('CRC mismatch');
  });
});

/** Runs the command line to its end; the exit code, and what it printed. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: { ...process.env, SANDBOX_LOG: 'off' } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('the command line says what went wrong, with exit code 2 for a run that could not happen', () => {
  it('names an unknown command as such', async () => {
    const result = await cli(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown command 'frobnicate'");
    expect(result.stderr).not.toContain('too many arguments');
  });

  it.each([
    [['replai', 'scenarios/'], 'replay'],
    [['lisen', '--key', 'k'], 'listen'],
    [['readines'], 'readiness'],
  ])('a mistyped command %j gets "Did you mean %s?" and a short usage, not serve\'s help', async (args, meant) => {
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: unknown command '${args[0]}'\n(Did you mean ${meant}?)`);
    expect(result.stderr).toContain('Usage: payreq-sandbox [command] [options]\nCommands: serve (the default), ');
    expect(result.stderr).not.toMatch(/Options:|--port|serve the sandbox over HTTP|unknown option/);
    expect(result.stderr.split('\n').length).toBeLessThan(8);
    expect(result.stdout).toBe('');
  });

  it.each([
    [['serve', '--memroy'], "error: unknown option '--memroy'\n(Did you mean --memory?)", 'payreq-sandbox serve --help'],
    [['--prot', '1'], "error: unknown option '--prot'\n(Did you mean --port?)", 'payreq-sandbox serve --help'],
    [['readiness'], "error: required option '-k, --key <key>' not specified", 'payreq-sandbox readiness --help'],
  ])('a mistyped option %j is named with a pointer to --help, not buried under 60 lines of help', async (args, said, pointer) => {
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(said);
    expect(result.stderr).toContain(pointer);
    expect(result.stderr).not.toMatch(/Options:|SANDBOX_/);
    expect(result.stderr.split('\n').length).toBeLessThan(6);
  });

  it('refuses a port out of range with the range', async () => {
    const result = await cli(['serve', '--memory', '--port', '99999']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--port must be a whole number from 0 to 65535, got 99999');
  });

  it('says a port is in use, and how to choose another', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const result = await cli(['serve', '--memory', '--port', String(port)]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`port ${port} is already in use on 127.0.0.1`);
      expect(result.stderr).toContain('--port or PORT');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    } finally {
      taken.close();
    }
  });

  it('an unreachable --base-url fails once, clearly, before any file', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await cli(['replay', 'scenarios/', '--base-url', `http://127.0.0.1:${port}`, '--no-color']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`cannot reach the sandbox at http://127.0.0.1:${port}`);
    expect(result.stdout).not.toContain('FAIL');
  });

  it('a missing folder, or one without scenario files, is "could not run", not "failed"', async () => {
    const missing = await cli(['replay', 'no-such-folder/']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no-such-folder/: no such file or folder');
    const empty = await cli(['replay', mkdtempSync(join(tmpdir(), 'no-scenarios-'))]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('no scenario files');
  });

  it('a reader that goes away (| head) ends the replay quietly', async () => {
    const child = spawn(process.execPath, [CLI, 'replay', 'scenarios/', '--no-color'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(stderr).not.toContain('EPIPE');
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(code === 0 || code === 1).toBe(true);
  });
});
