/** Contracts of the service routes a load balancer and a monitor call: /healthz and /metrics (handlers in service.handlers.ts). */
import { z } from 'zod';
import { answers, json, problemBody } from '../contract/answers.js';
import { defineRoute } from '../contract/route.js';

const tag = 'Service';
const store = z.enum(['memory', 'file', 'postgres']);

export const health = defineRoute({
  method: 'get',
  path: '/healthz',
  summary: 'Liveness and store readiness (no key)',
  tag,
  access: 'open',
  responses: {
    200: json('The store can be read and written.', z.object({ code: z.literal(200), description: z.string(), store })),
    500: answers.internal,
    503: json('The store cannot be read or written: 503 whatever SANDBOX_HTTP_STATUS says.', problemBody(503, { store })),
  },
});

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
