/** The reference page's assets are a fixed list: any other name, inherited ones included, is a 404. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { call, expectEnvelope, quietSandbox } from '../support/http.js';

describe('GET /docs/assets/:file', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await quietSandbox();
  });
  afterAll(() => sandbox.close());

  it.each(['constructor', 'hasOwnProperty', 'toString', '__proto__', 'valueOf', 'package.json', 'index.html'])('%s is a 404 like any unknown asset', async (name) => {
    const answer = await call(sandbox, 'GET', `/docs/assets/${name}`, { key: null });
    expectEnvelope(answer, 404);
  });

  it('a listed asset is served', async () => {
    const answer = await call(sandbox, 'GET', '/docs/assets/swagger-ui.css', { key: null });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/css/);
  });
});
