/**
 * The dashboard with the longest values a merchant may send (a webhook URL with a token in it, a
 * fault rule on one payment's path, a 64-character payer and reference, long metadata): each
 * wraps inside its panel, so nothing scrolls sideways on a 375 px phone or a 1280 px desktop.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createBody, DEMO_KEY } from '../helpers.js';
import { DESKTOP, PHONE, openDashboard, scrollsSideways, servedDashboard } from './chromium.js';

const served = servedDashboard();

/** No space, no dash: nothing a browser breaks a line at by itself. */
const TOKEN = 'a'.repeat(64);

async function call(method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${served.server.url}${path}`, { method, headers: { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const answer = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(answer)).toBe(200);
  return answer;
}

beforeAll(async () => {
  const created = await call('POST', '/openapi/v1/payments/payment', createBody({ merchant_ref_no: 'r' + TOKEN.slice(1), metadata: { ['k' + TOKEN]: 'v' + TOKEN.repeat(3) } }));
  const id = created.payment_id as string;
  await call('POST', `/openapi/v1/payments/payment/${id}/assign`, { payer: TOKEN });
  await call('PUT', '/sandbox/v1/webhook', { url: `http://127.0.0.1:9/hooks/${TOKEN}${TOKEN}` });
  await call('POST', '/sandbox/v1/faults', { match: { method: 'POST', path: `/openapi/v1/payments/payment/${id}/cancel` }, fault: 'error-after-commit=504' });
});

describe('long values', () => {
  for (const [name, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
    it(`wrap inside their panels on a ${name}: nothing scrolls sideways, the list and a payment's detail alike`, async () => {
      const page = await served.chromium.newPage(viewport);
      await openDashboard(page, served.server.url, DEMO_KEY);
      await page.locator('#webhook-current').waitFor();
      await page.locator('#fault-rules li.rule').waitFor();
      await page.locator('#payments-body button[data-action="open"]').first().waitFor();
      expect(await scrollsSideways(page)).toBe(false);
      await page.locator('#payments-body button[data-action="open"]').first().click();
      await page.locator('#detail [data-field="payment_id"]').waitFor();
      expect(await scrollsSideways(page)).toBe(false);
      await page.close();
    });
  }
});
