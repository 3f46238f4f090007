/** Whole-number query parameters are read as plain digits: what Number() would also take is refused, naming the field. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { jsonRequest, memorySandbox } from '../../helpers.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await memorySandbox();
});
afterAll(() => sandbox.close());

async function get(path: string): Promise<{ status: number; body: { code: number; description: string; errors?: { field: string }[] } }> {
  const res = await sandbox.fetch(jsonRequest('GET', path));
  return { status: res.status, body: (await res.json()) as never };
}

describe('whole-number query parameters', () => {
  it.each([
    ['/sandbox/v1/payments?limit=0x10', 'limit', 'must be a whole number written in digits, such as 20, got "0x10"'],
    ['/sandbox/v1/payments?limit=1e1', 'limit', 'got "1e1"'],
    ['/sandbox/v1/payments?limit=%205', 'limit', 'got " 5"'],
    ['/sandbox/v1/payments?limit=5.0', 'limit', 'got "5.0"'],
    ['/sandbox/v1/payments?limit=', 'limit', 'got ""'],
    ['/sandbox/v1/payments?offset=-', 'offset', 'got "-"'],
    ['/sandbox/v1/requests?status=4e2', 'status', 'such as 402, got "4e2"'],
    ['/sandbox/v1/requests?limit=0x1F4', 'limit', 'got "0x1F4"'],
    ['/sandbox/v1/webhook/deliveries?limit=+5', 'limit', 'got " 5"'],
  ])('%s answers 400 naming %s', async (path, field, message) => {
    const { status, body } = await get(path);
    expect(status).toBe(400);
    expect(body.code).toBe(400);
    expect(body.description).toContain(`Invalid query parameter ${field}: ${field} `);
    expect(body.description).toContain(message);
    expect(body.errors?.[0]?.field).toBe(field);
  });

  it.each([
    ['/sandbox/v1/payments?limit=99999999999999999999999', 'limit must be at most 100'],
    ['/sandbox/v1/payments?offset=123456789012345678901234567890', 'offset must be at most 1000000'],
    ['/sandbox/v1/requests?limit=1000', 'limit must be at most 500'],
    ['/sandbox/v1/requests?status=700', 'status must be an HTTP status from 100 to 599, got 700'],
  ])('a number too large is called too large: %s', async (path, message) => {
    const { status, body } = await get(path);
    expect(status).toBe(400);
    expect(body.description).toContain(message);
    expect(body.description).not.toContain('whole number');
  });

  it('plain digits still work, leading zeros included', async () => {
    const { status, body } = await get('/sandbox/v1/payments?limit=007&offset=0');
    expect(status).toBe(200);
    expect(body.code).toBe(200);
  });
});
