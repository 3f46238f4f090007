import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../src/cli.js';
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
