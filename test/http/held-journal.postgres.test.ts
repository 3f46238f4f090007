/**
 * SPEC 19 on PostgreSQL: two sandboxes on one database. A create held by a timeout fault on one
 * is in the journal (as held) read through the other while its client still waits, and it is
 * not journaled a second time when the hold ends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import type { Sandbox } from '../../src/index.js';
import { freshDatabase } from '../support/databases.js';
import { call, createBody, DEMO_KEY, DEMO_PAYEE, expectEnvelope } from '../support/http.js';
import { entriesOf, heldEntry, holdCreate } from '../support/held.js';
import type { Fetch } from '../support/held.js';
import { until } from '../support/until.js';

const BASE = 'http://sandbox.test';

let holding: Sandbox;
let reading: Sandbox;
beforeAll(async () => {
  const url = await freshDatabase();
  holding = await createSandbox({ store: 'postgres', url, scheduler: false, config: { timeoutHoldMs: 60_000 } });
  reading = await createSandbox({ store: 'postgres', url, scheduler: false });
});
afterAll(async () => {
  await holding?.close();
  await reading?.close();
});

describe('a held create on one instance, the journal read on another', () => {
  it.each([
    ['Sandbox-Fault: timeout', { 'Sandbox-Fault': 'timeout' }, {}, 'timeout'],
    ['amount 900.03', {}, { amount: 900.03 }, 'timeout (magic amount 900.03)'],
  ] as const)('%s: held, readable at once through the other instance, once', async (_by, headers, overrides, fault) => {
    const onHolding: Fetch = (request) => holding.fetch(request);
    const onReading: Fetch = (request) => reading.fetch(request);
    const create = holdCreate(onHolding, BASE, DEMO_KEY, createBody(overrides), headers);
    const entry = await heldEntry(onReading, BASE, DEMO_KEY, create);
    expect(entry).toMatchObject({ status: 'held', code: 200, fault });
    const paymentId = entry.response_body!.payment_id as string;
    expectEnvelope(await call(reading, 'GET', `/openapi/v1/payments/payment/${paymentId}`), 200);

    await create.giveUp();
    await until(() => (holding.services.held.count(DEMO_PAYEE) === 0 ? true : undefined), 'the hold to end');
    // A later request of the holding instance is journaled after anything the held one could still write.
    expectEnvelope(await call(holding, 'GET', `/openapi/v1/payments/payment/${paymentId}`), 200);
    expect(await entriesOf(onReading, BASE, DEMO_KEY, create.requestId)).toEqual([entry]);
  });
});
