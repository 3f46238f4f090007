/** The reference page answers at /docs and at /docs/, and every URL it loads resolves from either (also behind a path prefix). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { call, quietSandbox } from '../support/http.js';

/** The stylesheet, the script and the document the page loads, resolved against the page's URL as a browser does. */
function loadedUrls(html: string, pageUrl: string): string[] {
  const refs = [...html.matchAll(/(?:href|src)="([^"]+)"/g), ...html.matchAll(/url: '([^']+)'/g)].map((m) => m[1]!);
  return refs.map((ref) => new URL(ref, pageUrl).href);
}

describe.each(['/docs'])('GET %s', (path) => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await quietSandbox();
  });
  afterAll(() => sandbox.close());

  it('serves the reference page', async () => {
    const answer = await call(sandbox, 'GET', path, { key: null });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    expect(answer.text).toContain('SwaggerUIBundle');
  });

  it.each(['', '/payreq'])('every URL the page loads answers 200 (served under "%s")', async (prefix) => {
    const answer = await call(sandbox, 'GET', path, { key: null });
    const urls = loadedUrls(answer.text, `https://sandbox.example.test${prefix}${path}`);
    expect(urls.map((u) => new URL(u).pathname.slice(prefix.length)).sort()).toEqual(['/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css', '/openapi.json']);
    for (const url of urls) {
      const loaded = await call(sandbox, 'GET', new URL(url).pathname.slice(prefix.length), { key: null });
      expect(loaded.status, url).toBe(200);
    }
  });

  it('answers 405 with Allow to another method', async () => {
    const answer = await call(sandbox, 'POST', path, { key: null });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toContain('GET');
  });
});
