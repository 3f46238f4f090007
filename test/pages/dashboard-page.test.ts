/** The dashboard frame through app.request(): it never holds or echoes a key, and runs only its own script. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { DEMO_KEY, memorySandbox } from '../helpers.js';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await memorySandbox();
});
afterAll(async () => {
  await sandbox.close();
});

const page = (path: string, init?: RequestInit) => sandbox.fetch(new Request(`http://sandbox.test${path}`, init));

describe('GET /sandbox', () => {
  it('renders the dashboard frame: every panel, and a label for every field', async () => {
    const res = await page('/sandbox');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    for (const id of ['key-form', 'refresh', 'settle-all', 'advance', 'reset', 'payments-body', 'journal', 'status-filter', 'search', 'create-form', 'webhook-form', 'fault-form', 'readiness-junit']) {
      expect(html).toContain(`id="${id}"`);
    }
    for (const payer of ['PAYER_PAYS', 'PAYER_PAYS_LATER', 'PAYER_DECLINES', 'PAYER_NEVER_PAYS']) expect(html).toContain(`<code>${payer}</code>`);
    // Every input, select and textarea (but checkboxes, which sit inside their label) is named by a <label for>.
    const fields = [...html.matchAll(/<(?:input|select|textarea)\b[^>]*\bid="([^"]+)"[^>]*>/g)].filter((m) => !m[0].includes('type="checkbox"')).map((m) => m[1]);
    expect(fields.length).toBeGreaterThan(15);
    for (const id of fields) expect(html, `label for ${id}`).toContain(`<label for="${id}"`);
    expect(html).toContain('data-control-root="/sandbox/v1"');
    expect(html).toContain('data-public-root="/openapi/v1"');
  });

  it('runs only its own nonce-bearing module, and the key input can never be submitted', async () => {
    const res = await page('/sandbox');
    const csp = res.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    const html = await res.text();
    expect(html).toContain(`<script type="module" nonce="${nonce}" src="/sandbox/assets/dashboard.js">`);
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("form-action 'self'");
    // The key input has no name, so no form submission can carry it.
    expect(html).toMatch(/<input id="key-input" type="password"(?![^>]*\bname=)[^>]*>/);
    const session = await (await page('/sandbox/assets/session.js')).text();
    expect(session).toContain("'Service-Api-Key': key");
    expect(session).toContain('sessionStorage');
    expect(session).not.toMatch(/document\.cookie|localStorage/);
  });

  it('never echoes a key: not the demo key, not one sent in the query or a header', async () => {
    const html = await (await page('/sandbox?key=sk_sandbox_leaked_in_url&api_key=sk_x', { headers: { 'Service-Api-Key': DEMO_KEY } })).text();
    expect(html).not.toContain(DEMO_KEY);
    expect(html).not.toContain('sk_sandbox_leaked_in_url');
    expect(html).not.toContain('sk_x');
  });

  it('gives a fresh nonce to every response', async () => {
    const a = (await page('/sandbox')).headers.get('content-security-policy');
    const b = (await page('/sandbox')).headers.get('content-security-policy');
    expect(a).not.toBe(b);
  });

  it('answers 405 to other methods and keeps the JSON routes under /sandbox/v1 untouched', async () => {
    const res = await page('/sandbox', { method: 'POST', body: 'key=sk' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    const codes = await page('/sandbox/v1/codes');
    expect(codes.headers.get('content-type')).toMatch(/^application\/json/);
    expect(codes.headers.get('content-security-policy')).toBeNull();
  });
});
