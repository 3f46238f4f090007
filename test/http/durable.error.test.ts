import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv, Services } from '../../src/http/context.js';
import { holdUntilWritten } from '../../src/http/durable.js';

/** An app whose store reports a pending write that lands, then (for later requests) one that fails. */
function appWithWrites(writes: (Promise<void> | undefined)[]) {
  const app = new Hono<AppEnv>();
  let next = 0;
  const services = { config: { httpStatusMode: 'mirror-code' }, store: { pendingWrites: () => writes[next++] } } as unknown as Services;
  app.use('*', async (c, go) => {
    c.set('services', services);
    c.set('warnings', []);
    await go();
    await holdUntilWritten(c);
  });
  return app;
}

describe('holdUntilWritten', () => {
  it('waits once per request: a newer batch that fails after the answer was held does not turn it into a 500', async () => {
    const failing = Promise.reject(new Error('ENOSPC'));
    failing.catch(() => undefined);
    const app = appWithWrites([Promise.resolve(), failing]);
    app.get('/x', async (c) => {
      await holdUntilWritten(c);
      return c.json({ code: 200, description: 'ok' });
    });
    const answer = await app.request('/x');
    expect(answer.status).toBe(200);
  });

  it('turns the answer into a 500 that says why when the write it waited for fails', async () => {
    const failing = Promise.reject(new Error('ENOSPC'));
    failing.catch(() => undefined);
    const app = appWithWrites([failing]);
    app.get('/x', (c) => c.json({ code: 200, description: 'ok' }));
    const answer = await app.request('/x');
    expect(answer.status).toBe(500);
    expect(((await answer.json()) as { description: string }).description).toMatch(/could not write its data file.*retry/);
  });
});
