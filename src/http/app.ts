/** createApp(services): the one Hono app, used by the server, the library and the tests alike. */
import { Hono } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { Context } from 'hono';
import { Code } from '../domain/codes.js';
import { PUBLIC_PREFIXES } from '../domain/public-api.js';
import { publicApi, statusReadOf } from './api/payments/payments.index.js';
import type { AppEnv, Services } from './context.js';
import { send } from './envelope.js';
import { answerError } from './errors.js';
import { everyRequest } from './middleware/every-request.js';
import { keyedRequests } from './middleware/keyed.js';
import { keyedCatalogueRoutes, openCatalogueRoutes } from './sandbox/catalogue/catalogue.index.js';
import { clockRoutes } from './sandbox/clock/clock.index.js';
import { controlRoutes } from './sandbox/control/control.index.js';
import { faultRoutes } from './sandbox/faults/faults.index.js';
import { journalRoutes } from './sandbox/journal/journal.index.js';
import { webhookRoutes } from './sandbox/webhook/webhook.index.js';
import { webhookStreamRoutes } from './sandbox/webhook-stream/webhook-stream.index.js';
import { merchantRoutes, ownMerchantRoutes } from './sandbox/merchants/merchants.index.js';
import { readinessRoutes } from './sandbox/readiness/readiness.index.js';
import { pagesRoutes } from './pages/index.js';
import { referenceRoutes } from './reference/reference.index.js';
import { bindRoute } from './contract/route.js';
import * as serviceRoutes from './service/service.routes.js';
import * as serviceHandlers from './service/service.handlers.js';

export function createApp(services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.use('*', everyRequest(services, servesMethod));

  bindRoute(app, serviceRoutes.livez, serviceHandlers.live());
  bindRoute(app, serviceRoutes.readyz, serviceHandlers.ready(services));
  bindRoute(app, serviceRoutes.health, serviceHandlers.ready(services));

  bindRoute(app, serviceRoutes.metrics, serviceHandlers.metrics(services));

  // Filled once every route is known (answerWrongMethods): the Allow of an injected 405.
  const allowByPath = new Map<string, string>();
  const publicKeyed = keyedRequests({ serves: servesMethod, readOf: statusReadOf, faults: { serves: servesMethod, allowOf: (c) => allowOf(c, allowByPath) } });

  const api = publicApi(services.config.productTypes, services.store.versionsFinal);
  for (const prefix of PUBLIC_PREFIXES) {
    app.use(`${prefix}/*`, publicKeyed);
    app.route(prefix, api);
  }

  const keyed = new Hono<AppEnv>();
  keyed.use('*', keyedRequests({ serves: servesMethod }));
  keyed.route('/', controlRoutes());
  keyed.route('/', clockRoutes());
  keyed.route('/', keyedCatalogueRoutes());
  keyed.route('/', faultRoutes());
  keyed.route('/', journalRoutes());
  keyed.route('/', webhookRoutes());
  keyed.route('/', webhookStreamRoutes());
  keyed.route('/', ownMerchantRoutes());
  keyed.route('/', readinessRoutes());
  app.route('/sandbox/v1', merchantRoutes());
  app.route('/sandbox/v1', openCatalogueRoutes());
  app.route('/sandbox/v1', keyed);

  app.route('/', referenceRoutes(() => app.routes));

  app.route('/sandbox', pagesRoutes());

  answerWrongMethods(app, allowByPath);

  app.notFound((c) =>
    send(c, { code: Code.NOT_FOUND, description: `No route ${c.req.method} ${new URL(c.req.url).pathname}: GET /openapi.json lists the routes (docs/ in the repository describes them).` }),
  );

  app.onError(answerError);

  return app;
}

/**
 * True when Hono matched a route of this method (not only middleware or the 405 catch-alls,
 * which are registered for ALL): what tells a real route from a typo, at no cost of its own.
 */
function servesMethod(c: Context<AppEnv>): boolean {
  const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
  return matchedRoutes(c).some((route) => route.method === method);
}

/** The methods the path of this request serves, as its 405 lists them in Allow. */
function allowOf(c: Context<AppEnv>, allowByPath: ReadonlyMap<string, string>): string {
  for (const route of matchedRoutes(c)) {
    const allow = allowByPath.get(route.path);
    if (allow !== undefined) return allow;
  }
  return '';
}

/**
 * Every known path answers 405 with an Allow header for the methods it does not serve. Not Hono's
 * methodNotAllowed middleware: it turns only answers with HTTP status 404 into 405, and with
 * SANDBOX_HTTP_STATUS=always-200 our 404 envelopes have status 200, so wrong methods would stay 404s.
 * `allowByPath` gets each path's Allow.
 */
function answerWrongMethods(app: Hono<AppEnv>, allowByPath: Map<string, string>): void {
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
    allowByPath.set(path, allow);
    app.all(path, (c: Context<AppEnv>) =>
      send(
        c,
        { code: Code.METHOD_NOT_ALLOWED, description: `${c.req.method} is not allowed on ${new URL(c.req.url).pathname}; allowed: ${allow}.` },
        { Allow: allow },
      ),
    );
  }
}
