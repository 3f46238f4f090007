import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../src/serve-command.js';
import { toEmvPayload } from '../src/domain/emv.js';
import { CLI } from './support/processes.js';

const run = promisify(execFile);

const PAYLOAD = toEmvPayload({
  payeeId: 'DEMO-MERCHANT-1', mcc: '5812', currencyNumeric: '702', amount: '10.50', countryCode: 'SG', merchantName: 'Demo', merchantCity: 'Singapore', paymentCode: 'ABCD2345WXYZ',
});

describe('configuration from the environment', () => {
  it('reads SANDBOX_ADMIN_TOKEN, PUBLIC_BASE_URL, SANDBOX_HTTP_STATUS and SANDBOX_RATE_LIMIT', () => {
    expect(configFromEnv({ SANDBOX_ADMIN_TOKEN: 'tok', PUBLIC_BASE_URL: 'https://sandbox.example.com/', SANDBOX_HTTP_STATUS: 'always-200', SANDBOX_RATE_LIMIT: '20' })).toMatchObject({
      adminToken: 'tok',
      publicBaseUrl: 'https://sandbox.example.com',
      httpStatusMode: 'always-200',
      defaultRateLimit: 20,
    });
  });

  it('reads the storage quota and budget in MiB (fractions too), 64 and 1024 by default', () => {
    expect(configFromEnv({ SANDBOX_MERCHANT_STORAGE_MB: '0.5', SANDBOX_STORAGE_MB: '2048' }).storage).toEqual({ merchantBytes: 512 * 1024, sandboxBytes: 2048 * 1024 * 1024 });
    expect(configFromEnv({}).storage).toEqual({ merchantBytes: 64 * 1024 * 1024, sandboxBytes: 1024 * 1024 * 1024 });
  });

  it('defaults: no admin token, mirror-code, no rate limit', () => {
    expect(configFromEnv({})).toMatchObject({ adminToken: undefined, publicBaseUrl: undefined, httpStatusMode: 'mirror-code', defaultRateLimit: 0 });
  });
});

describe('payreq-sandbox --version', () => {
  it("prints package.json's version and exits 0", async () => {
    const { stdout } = await run(process.execPath, [CLI, '--version']);
    const { version } = JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'))) as { version: string };
    expect(stdout.trim()).toBe(version);
  });
});

describe('payreq-sandbox qr decode', () => {
  it('prints every tag by name, the payment_code, and exits 0 on a valid payload', async () => {
    const { stdout } = await run(process.execPath, [CLI, 'qr', 'decode', PAYLOAD]);
    expect(stdout).toContain('Merchant Account Information');
    expect(stdout).toContain('Reference Label');
    expect(stdout).toContain('CRC: valid');
    expect(stdout).toContain('payment_code: ABCD2345WXYZ');
  });
});

describe('payreq-sandbox serve --help', () => {
  it('lists every environment variable the code reads, each with its default, and the page that explains them', async () => {
    const { stdout } = await run(process.execPath, [CLI, 'serve', '--help']);
    expect(stdout).toContain('Environment (flags win; what each does: docs/hosting.md#configuration):');
    const listed = new Map([...stdout.matchAll(/^ {2}([A-Z][A-Z0-9_]+) +(\S.*)$/gm)].map((m) => [m[1]!, m[2]!]));
    // Every variable named in the server's code (src/, but the client commands' own), found by reading it.
    const read = new Set<string>();
    const { readdirSync, readFileSync } = await import('node:fs');
    const src = new URL('../src/', import.meta.url);
    for (const file of readdirSync(src, { recursive: true }) as string[]) {
      if (!/\.tsx?$/.test(file) || /^(dev|scenarios)\/|listen-command|readiness-command|command-output/.test(file)) continue;
      const text = readFileSync(new URL(file, src), 'utf8');
      for (const m of text.matchAll(/\benv(?:\.|\[')([A-Z][A-Z0-9_]{2,})|\b(?:envChoice|envWholeNumber|envMebibytes)\(env, '([A-Z_]+)'|\.env\('([A-Z_]+)'\)|^\s+\w+: '((?:SANDBOX|PUBLIC)_[A-Z_]+)',$/gm)) read.add((m[1] ?? m[2] ?? m[3] ?? m[4])!);
    }
    read.delete('NO_COLOR');
    read.delete('SANDBOX_BASE_URL');
    expect(read.size).toBeGreaterThan(25);
    expect([...read].filter((name) => !listed.has(name)).sort()).toEqual([]);
    expect(listed.get('SANDBOX_STORAGE_MB')).toBe('1024');
    expect(listed.get('SANDBOX_HEADERS_TIMEOUT_MS')).toBe('10000');
    expect(listed.get('PORT')).toBe('8080 (--port)');
  });
});
