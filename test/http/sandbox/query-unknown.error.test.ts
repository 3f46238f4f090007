/** An unknown query parameter is ignored as production would, but named in Sandbox-Warning, so a typo (`stauts`) does not pass unnoticed as an unfiltered list. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { createBody, jsonRequest, memorySandbox } from '../../helpers.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await memorySandbox();
  await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody()));
});
afterAll(() => sandbox.close());

async function get(path: string): Promise<{ status: number; warning: string | null; body: Record<string, unknown> }> {
  const res = await sandbox.fetch(jsonRequest('GET', path));
  return { status: res.status, warning: res.headers.get('sandbox-warning'), body: (await res.json()) as Record<string, unknown> };
}

describe('unknown query parameters', () => {
  it.each([
    ['/sandbox/v1/payments?stauts=P', 'unknown query parameter "stauts" ignored (did you mean "status"?)'],
    ['/sandbox/v1/requests?pth=/v1', 'unknown query parameter "pth" ignored (did you mean "path"?)'],
    ['/sandbox/v1/webhook/deliveries?limt=5', 'unknown query parameter "limt" ignored (did you mean "limit"?)'],
    ['/sandbox/v1/payments?zzz=1', 'unknown query parameter "zzz" ignored'],
  ])('%s answers as without it, warning %s', async (path, warning) => {
    const plain = await get(path.slice(0, path.indexOf('?')));
    const typo = await get(path);
    expect(typo.status).toBe(200);
    expect(typo.warning).toContain(warning);
    expect(plain.warning).toBeNull();
    expect(Object.keys(typo.body)).toEqual(Object.keys(plain.body));
  });

  it('names a known parameter nowhere, and the journal keeps the warning', async () => {
    const ok = await get('/sandbox/v1/payments?status=P&limit=5');
    expect(ok.status).toBe(200);
    expect(ok.warning).toBeNull();
    await get('/sandbox/v1/payments?stauts=P');
    const { requests } = (await get('/sandbox/v1/requests?limit=2')).body as { requests: { path: string; warnings: string[] }[] };
    expect(requests.find((r) => r.path === '/sandbox/v1/payments')?.warnings.join(' ')).toContain('"stauts"');
  });

  it('a bad value of a known parameter is still a 400, whatever else is sent', async () => {
    const res = await get('/sandbox/v1/payments?limit=abc&stauts=P');
    expect(res.status).toBe(400);
    expect(String(res.body.description)).toContain('Invalid query parameter limit');
  });
});
