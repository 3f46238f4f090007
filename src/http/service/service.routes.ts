/**
 * Contracts of the service routes a load balancer and a monitor call: /livez, /readyz, /healthz
 * and /metrics (handlers in service.handlers.ts).
 */
import { z } from 'zod';
import { answers, json, problemBody } from '../contract/answers.js';
import { defineRoute } from '../contract/route.js';

const tag = 'Service';
const store = z.enum(['memory', 'file', 'postgres']);
/** Why an instance is not ready: it drains (stop sending it work), or its store cannot be used. */
const notReady = problemBody(503, { store, reason: z.enum(['draining', 'store']) });
const readyAnswers = {
  200: json('The store can be read and written, and the instance takes work.', z.object({ code: z.literal(200), description: z.string(), store })),
  500: answers.internal,
  503: json('The instance drains (reason draining) or its store cannot be read or written (reason store): 503 whatever SANDBOX_HTTP_STATUS says.', notReady),
};

export const livez = defineRoute({
  method: 'get',
  path: '/livez',
  summary: 'Liveness: the process answers (no key, no store access)',
  description: 'For a restart check: 200 as long as the process can answer at all, whatever the state of the store. Not for a balancer: use /readyz.',
  tag,
  access: 'open',
  responses: {
    200: json('The process answers.', z.object({ code: z.literal(200), description: z.string() })),
  },
});

export const readyz = defineRoute({
  method: 'get',
  path: '/readyz',
  summary: 'Readiness: send this instance work (no key)',
  description: 'For a load balancer: 200 only while the store is ready and the instance is not draining, else 503 with the reason.',
  tag,
  access: 'open',
  responses: readyAnswers,
});

export const health = defineRoute({
  method: 'get',
  path: '/healthz',
  summary: 'The same as /readyz (no key)',
  description: 'Kept for tools that check /healthz: 200 while the store can be written and read and the instance is not draining, else 503 with what is wrong.',
  tag,
  access: 'open',
  responses: readyAnswers,
});

/** The routes whose calls write no request line unless SANDBOX_LOG_HEALTH=on: balancers call them every few seconds. */
export const HEALTH_ROUTES: ReadonlySet<string> = new Set([livez.path, readyz.path, health.path]);

export const metrics = defineRoute({
  method: 'get',
  path: '/metrics',
  summary: 'Prometheus metrics (SANDBOX_METRICS=off turns them off)',
  description:
    'No key. With SANDBOX_METRICS_TOKEN set, only Authorization: Bearer <that token> is answered. Labels carry route patterns and fixed sets of methods and statuses (an injected status the sandbox would not answer by itself is counted as injected), never an id or a key.',
  tag,
  access: 'metrics',
  responses: {
    200: { description: 'The Prometheus text format.', content: { 'text/plain': { type: 'string' } } },
    401: json('SANDBOX_METRICS_TOKEN is set and the Authorization header is missing, not Bearer, or not that token: 401 whatever SANDBOX_HTTP_STATUS says.', problemBody(401), {
      headers: { 'WWW-Authenticate': { description: 'Bearer realm="metrics".', required: true, schema: { type: 'string', enum: ['Bearer realm="metrics"'] } } },
    }),
    404: json('Metrics are turned off on this sandbox.', problemBody(404)),
    500: answers.internal,
  },
});
