/**
 * SPEC 26: a number in metadata that metadata cannot keep (JSON.parse reads 5,000 digits as
 * Infinity, which would be written back as null) is refused with a 400 naming where it is;
 * nothing is created. Numbers it can keep are returned as sent.
 */
import { describe, expect, it } from 'vitest';
import { createBody, jsonRequest, memorySandbox } from '../helpers.js';

const huge = '9'.repeat(5000);

async function create(bodyText: string) {
  const sandbox = await memorySandbox();
  try {
    const answer = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', bodyText));
    const list = await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/payments'));
    return { status: answer.status, body: (await answer.json()) as { code: number; description: string; payment_id?: string; metadata?: unknown }, listed: ((await list.json()) as { payments?: unknown[] }).payments?.length ?? 0 };
  } finally {
    await sandbox.close();
  }
}

/** A create body with `metadataText` spliced in as the metadata's JSON text. */
const withMetadata = (metadataText: string) => JSON.stringify(createBody({ metadata: 'HERE' })).replace('"HERE"', metadataText);

describe('metadata numbers', () => {
  it.each<[string, string]>([
    ['metadata.big', `{"big": ${huge}}`],
    ['metadata.order.lines[2]', `{"order": {"lines": [1, 2, -${huge}]}}`],
    ['metadata.e', '{"e": 1e400}'],
  ])('%s: refused with a 400 naming it; nothing is created', async (where, metadataText) => {
    const answer = await create(withMetadata(metadataText));
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe(400);
    expect(answer.body.description).toContain(`${where} is a number too large to keep`);
    expect(answer.body.description).toContain('send it as a string');
    expect(answer.listed).toBe(0);
  });

  it('numbers it can keep, and the big one as a string, are stored and returned as sent', async () => {
    const answer = await create(withMetadata(`{"n": 1.5e300, "small": -0.25, "big": "${huge.slice(0, 100)}"}`));
    expect(answer.status).toBe(200);
    expect(answer.body.metadata).toEqual({ n: 1.5e300, small: -0.25, big: huge.slice(0, 100) });
  });
});
