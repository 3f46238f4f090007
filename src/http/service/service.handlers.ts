/** Handlers of the service routes (contracts in service.routes.ts): /healthz here; /metrics is bound in http/app.ts. */
import type { Context } from 'hono';
import { Code } from '../../domain/codes.js';
import type { AppEnv, Services } from '../context.js';
import { ok } from '../envelope.js';
import { toJsonText } from '../json-text.js';

/** What fails while the store is not ready, by store: the file store answers reads from memory. */
const WHILE_NOT_READY = {
  memory: 'Requests that read or change data fail until the store is back.',
  file: 'Changes may be refused (500, nothing kept) until it is fixed; reads are still answered, from memory.',
  postgres: 'Requests that read or change data fail until the store is back.',
} as const;

/** GET /healthz: 200 while the store can be read and written, else 503 saying what is wrong (never a stack). */
export function health(services: Services) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const { store } = services;
    try {
      await store.ready();
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      // A load balancer reads the status, so it is 503 whatever SANDBOX_HTTP_STATUS says.
      const body = { code: Code.UNAVAILABLE, description: `Not ready: ${why}. ${WHILE_NOT_READY[store.kind]}`, store: store.kind };
      return c.body(toJsonText(body), 503, { 'content-type': 'application/json; charset=UTF-8' });
    }
    return ok(c, `ok: the ${store.kind} store can be read and written.`, { store: store.kind });
  };
}
