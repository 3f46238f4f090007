/** Contracts of the service routes a load balancer and a monitor call: /healthz and /metrics (handlers: /healthz in service.handlers.ts, /metrics in http/app.ts). */
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
  tag,
  access: 'open',
  responses: {
    200: { description: 'The Prometheus text format.', content: { 'text/plain': { type: 'string' } } },
    404: json('Metrics are turned off on this sandbox.', problemBody(404)),
    500: answers.internal,
  },
});
