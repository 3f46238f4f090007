/** createApp(services): the one Hono app, used by the server, the library and the tests alike. */
import { Hono } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';
import type { Context } from 'hono';
import { ApiError, Code } from '../domain/codes.js';
import { publicApi } from './api/payments/payments.index.js';
import type { AppEnv, Services } from './context.js';
import { ok, send, sendError, toJsonText } from './envelope.js';
import { holdUntilWritten } from './durable.js';
import { DroppedConnection, DROPPED_HEADER } from './faults.js';
import { requireApiKey } from './middleware/auth.js';
import { injectFaults } from './middleware/faults.js';
import { journalRequests } from './middleware/journal.js';
import { limitRate } from './middleware/rate-limit.js';
import { observeRequests } from './middleware/observe.js';
import { idempotentPosts } from './middleware/idempotency.js';
import { keyedCatalogueRoutes, openCatalogueRoutes } from './sandbox/catalogue/catalogue.index.js';
import { clockRoutes } from './sandbox/clock/clock.index.js';
import { controlRoutes } from './sandbox/control/control.index.js';
import { faultRoutes } from './sandbox/faults/faults.index.js';
import { journalRoutes } from './sandbox/journal/journal.index.js';
import { webhookRoutesDescribed } from './sandbox/webhook.routes.js';
import { merchantRoutesDescribed, ownMerchantRoutesDescribed } from './sandbox/merchants.routes.js';
import { readinessRoutesDescribed } from './sandbox/readiness.routes.js';
import { pagesRoutes } from './pages/index.js';
import { referenceRoutes } from './reference/reference.index.js';
import { bindRoute } from './contract/route.js';
import * as serviceRoutes from './service/service.routes.js';
import { StoreUnavailableError } from '../store/unavailable.js';

export const PUBLIC_PREFIXES = ['/openapi/v1', '/v1'] as const;

export function createApp(services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.use('*', observeRequests);
  app.use('*', async (c, next) => {
    c.set('services', services);
    c.set('warnings', []);
    await next();
    await holdUntilWritten(c);
  });

  bindRoute(app, serviceRoutes.health, async (c) => {
    try {
      await services.store.ready();
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      // A load balancer reads the status, so it is 503 whatever SANDBOX_HTTP_STATUS says.
      const body = { code: Code.UNAVAILABLE, description: `Not ready: ${why}. Requests that read or change data fail until the store is back.`, store: services.store.kind };
      return c.body(toJsonText(body), 503, { 'content-type': 'application/json; charset=UTF-8' });
    }
    return ok(c, `ok: the ${services.store.kind} store can be read and written.`, { store: services.store.kind });
  });

  bindRoute(app, serviceRoutes.metrics, async (c) => {
    const { metrics } = services;
    if (!metrics) return send(c, { code: Code.NOT_FOUND, description: 'Metrics are turned off on this sandbox (SANDBOX_METRICS=off).' });
    return c.body(await metrics.registry.metrics(), 200, { 'content-type': metrics.registry.contentType });
  });

  // Filled once every route is registered; read at request time.
  const routes = new RouteIndex();
  const authenticate = requireApiKey((method, path) => routes.has(method, path));

  const api = publicApi(services.config.productTypes);
  for (const prefix of PUBLIC_PREFIXES) {
    app.use(`${prefix}/*`, authenticate, journalRequests, limitRate, injectFaults, idempotentPosts);
    app.route(prefix, api);
  }

  const keyed = new Hono<AppEnv>();
  keyed.use('*', authenticate, journalRequests, limitRate, idempotentPosts);
  keyed.route('/', controlRoutes());
  keyed.route('/', clockRoutes());
  keyed.route('/', keyedCatalogueRoutes());
  keyed.route('/', faultRoutes());
  keyed.route('/', journalRoutes());
  keyed.route('/', webhookRoutesDescribed());
  keyed.route('/', ownMerchantRoutesDescribed());
  keyed.route('/', readinessRoutesDescribed());
  app.route('/sandbox/v1', merchantRoutesDescribed());
  app.route('/sandbox/v1', openCatalogueRoutes());
  app.route('/sandbox/v1', keyed);

  app.route('/', referenceRoutes(() => app.routes));

  app.route('/sandbox', pagesRoutes());

  routes.index(app);
  answerWrongMethods(app);

  app.notFound((c) =>
    send(c, { code: Code.NOT_FOUND, description: `No route ${c.req.method} ${new URL(c.req.url).pathname}: see the README or GET /openapi.json for the routes.` }),
  );

  app.onError((err, c) => {
    if (err instanceof ApiError) return sendError(c, err);
    if (err instanceof StoreUnavailableError) {
      console.error(`store unavailable on ${c.req.method} ${new URL(c.req.url).pathname}: ${err.message}`);
      const outcome = err.outcomeUnknown
        ? 'the connection was lost mid-call, so a change may or may not have been made: read the payment status before you retry'
        : 'nothing was changed; retry in a few seconds';
      return send(c, { code: Code.UNAVAILABLE, description: `The sandbox's database cannot be reached right now: ${outcome}.` }, { 'Retry-After': '2' });
    }
    if (err instanceof DroppedConnection) return new Response(null, { status: 599, headers: { [DROPPED_HEADER]: '1' } });
    // A client that hung up mid-body is not a sandbox fault: nobody reads this answer, and the journal says what happened.
    if (clientHungUp(err)) return send(c, { code: Code.INVALID, description: 'The client closed the connection before the request body arrived; nothing was changed.' });
    const storage = storageFailure(err);
    if (storage) {
      console.error(`store write failed on ${c.req.method} ${new URL(c.req.url).pathname}: ${err.message}`);
      return send(c, { code: Code.INTERNAL, description: `The sandbox could not write its data file (${storage}): nothing was changed. Free disk space or check the data directory, then retry.` });
    }
    // The cause goes to the server log only; the client gets the envelope, never a stack.
    console.error(`internal error on ${c.req.method} ${new URL(c.req.url).pathname}:`, err instanceof Error ? (err.stack ?? err.message) : err);
    return send(c, { code: Code.INTERNAL, description: 'Internal error in the sandbox: nothing was changed. Please report it with the request that caused it.' });
  });

  return app;
}

/** The method and path of every route the app serves, matched by Hono's own router, to tell a real route from a typo. */
class RouteIndex {
  private readonly router = new TrieRouter<true>();

  index(app: Hono<AppEnv>): void {
    for (const route of app.routes) {
      if (route.method === 'ALL' || route.path.includes('*')) continue;
      this.router.add(route.method, route.path, true);
    }
  }

  has(method: string, path: string): boolean {
    return this.router.match(method === 'HEAD' ? 'GET' : method, path)[0].length > 0;
  }
}

/** The errno of a failed write of the data file (a full disk, a read-only or failing device). */
function storageFailure(err: Error): string | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && STORAGE_ERRORS.has(code) ? code : undefined;
}

const STORAGE_ERRORS = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EROFS', 'EFBIG', 'EBADF']);

function clientHungUp(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  return err.message === 'aborted' || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE';
}

/** Every known path answers 405 with an Allow header for the methods it does not serve. */
function answerWrongMethods(app: Hono<AppEnv>): void {
  const byPath = new Map<string, Set<string>>();
  const add = (method: string, path: string) => {
    let methods = byPath.get(path);
    if (!methods) byPath.set(path, (methods = new Set()));
    methods.add(method);
  };
  for (const route of app.routes) {
    if (route.method === 'ALL' || route.path.endsWith('*')) continue;
    add(route.method, route.path);
  }
  for (const [path, methods] of byPath) {
    if (methods.has('GET')) methods.add('HEAD');
    const allow = [...methods].sort().join(', ');
    app.all(path, (c: Context<AppEnv>) =>
      send(
        c,
        { code: Code.METHOD_NOT_ALLOWED, description: `${c.req.method} is not allowed on ${new URL(c.req.url).pathname}; allowed: ${allow}.` },
        { Allow: allow },
      ),
    );
  }
}
