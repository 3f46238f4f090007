import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { jsonRequest, memorySandbox } from '../../helpers.js';

describe('GET /sandbox/v1/merchant', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox();
  });
  afterAll(() => sandbox.close());

  it("answers the key's own payee id and settings, never its key or salt", async () => {
    const enrolled = await sandbox.control.enroll({ name: 'Own Shop', require_signature: true, home_currency: 'MYR' });
    const res = await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/merchant', undefined, { 'Service-Api-Key': enrolled.apiKey }));
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ code: 200, payee_id: enrolled.payeeId, name: 'Own Shop', home_currency: 'MYR', country_code: 'MY', require_signature: true, qr_ttl_seconds: 900 });
    expect(text).not.toContain(enrolled.apiKey);
    expect(text).not.toContain(enrolled.signingSalt);
  });

  it('needs a key', async () => {
    expect((await sandbox.fetch(new Request('http://x/sandbox/v1/merchant'))).status).toBe(401);
  });
});
