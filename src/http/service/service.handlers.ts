/** Handlers of the health routes (contracts in service.routes.ts); /metrics is bound in http/app.ts. */
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

/** GET /livez: 200 while the process answers at all; it touches no store, so a database outage does not restart instances. */
export function live() {
  return (c: Context<AppEnv>): Response => {
    // Nothing this answer says depends on the store: it does not wait for a pending write either.
    c.set('heldUntilWritten', true);
    return ok(c, 'alive: this process answers. Whether it should get work is GET /readyz.');
  };
}

/**
 * GET /readyz and GET /healthz (one handler each, from this factory): 200 while the store can be
 * read and written and the instance is not draining, else 503 saying which (never a stack).
 */
export function ready(services: Services) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const { store, drain } = services;
    const draining = drain.reason;
    if (draining !== undefined) {
      return notReady(c, 'draining', `Not ready: this instance is draining (${draining}); it still answers what it is sent, but a balancer should send new requests to another instance.`, store.kind);
    }
    try {
      await store.ready();
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return notReady(c, 'store', `Not ready: ${why}. ${WHILE_NOT_READY[store.kind]}`, store.kind);
    }
    return ok(c, `ok: the ${store.kind} store can be read and written.`, { store: store.kind });
  };
}

function notReady(c: Context<AppEnv>, reason: 'draining' | 'store', description: string, store: string): Response {
  // A load balancer reads the status, so it is 503 whatever SANDBOX_HTTP_STATUS says.
  const body = { code: Code.UNAVAILABLE, description, store, reason };
  return c.body(toJsonText(body), 503, { 'content-type': 'application/json; charset=UTF-8' });
}
