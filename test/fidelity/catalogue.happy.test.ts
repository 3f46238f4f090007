import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { memorySandbox } from '../helpers.js';

describe('catalogues and the reference page', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox();
  });
  afterAll(() => sandbox.close());

  it('GET /sandbox/v1/codes lists every code with its meaning and causes, no key needed', async () => {
    const res = await sandbox.fetch(new Request('http://x/sandbox/v1/codes'));
    const json = (await res.json()) as { codes: { code: number; meaning: string; causes: string[] }[] };
    expect(json.codes.map((c) => c.code)).toEqual([200, 400, 401, 402, 404, 405, 408, 413, 414, 415, 417, 429, 431, 500, 503, 504]);
    for (const c of json.codes) {
      expect(c.meaning.length).toBeGreaterThan(2);
      expect(c.causes.length).toBeGreaterThan(0);
    }
  });

  it('names the 503 and 504 the sandbox answers by itself, not only the injected ones', async () => {
    const json = (await (await sandbox.fetch(new Request('http://x/sandbox/v1/codes'))).json()) as { codes: { code: number; causes: string[] }[] };
    const causes = (code: number) => json.codes.find((c) => c.code === code)!.causes.join(' | ');
    expect(causes(503)).toMatch(/cannot write its data file.*database cannot be reached.*nothing was changed/);
    expect(causes(504)).toMatch(/timeout fault.*900\.03.*120 s.*committed/);
  });

  it("does not promise nothing changed when the database connection was lost mid-call: the 503 then says a change may have been made", async () => {
    const json = (await (await sandbox.fetch(new Request('http://x/sandbox/v1/codes'))).json()) as { codes: { code: number; causes: string[] }[] };
    const causes = json.codes.find((c) => c.code === 503)!.causes;
    // The answer itself (http/errors.ts) says "may or may not have been made: read the payment status before you retry".
    const database = causes.filter((cause) => cause.includes('database'));
    expect(database.length).toBeGreaterThan(0);
    for (const cause of database) expect(cause).toMatch(/lost mid-call.*may have been made.*read the payment status/);
  });

  it('GET /sandbox/v1/magic lists the four magic payers and four magic amounts', async () => {
    const json = (await (await sandbox.fetch(new Request('http://x/sandbox/v1/magic'))).json()) as {
      payers: { value: string }[];
      amounts: { value: string; fault: string }[];
    };
    expect(json.payers.map((p) => p.value)).toEqual(['PAYER_PAYS', 'PAYER_PAYS_LATER', 'PAYER_DECLINES', 'PAYER_NEVER_PAYS']);
    expect(json.amounts.map((a) => [a.value, a.fault])).toEqual([
      ['900.01', 'error=500'],
      ['900.02', 'error=503'],
      ['900.03', 'timeout'],
      ['900.04', 'drop'],
    ]);
  });

  it('/docs serves a reference page whose assets come from the sandbox itself, not a CDN', async () => {
    const html = await (await sandbox.fetch(new Request('http://x/docs'))).text();
    expect(html).toContain("url: 'openapi.json'");
    const srcs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(srcs.length).toBeGreaterThan(1);
    for (const src of srcs) {
      // Relative to the page, so the page also works behind a path prefix.
      const url = new URL(src, 'http://x/docs');
      expect(url.origin).toBe('http://x');
      expect(url.pathname.startsWith('/docs/assets/')).toBe(true);
      const asset = await sandbox.fetch(new Request(url));
      expect(asset.status).toBe(200);
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    }
  });
});
