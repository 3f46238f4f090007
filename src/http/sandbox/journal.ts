/** The request journal: GET lists (newest first, filters), DELETE empties it. */
import { Hono } from 'hono';
import { maskedBody } from '../../services/journal.js';
import type { JournalEntry } from '../../services/journal.js';
import { validateQuery } from '../body.js';
import type { AppEnv } from '../context.js';
import { ok } from '../envelope.js';
import { journalQuerySchema } from '../schemas.js';

function entryView(e: JournalEntry): Record<string, unknown> {
  return {
    id: e.id,
    request_id: e.requestId ?? null,
    at: new Date(e.at).toISOString(),
    method: e.method,
    path: e.path,
    alias: e.alias,
    ...(e.alias ? { note: 'called without /openapi: the interface documents /openapi/v1/...; production may not serve /v1/...' } : {}),
    status: e.status,
    code: e.code,
    latency_ms: e.latencyMs,
    fault: e.fault,
    warnings: e.warnings,
    request_body: maskedBody(e.requestBody),
    response_body: maskedBody(e.responseBody),
  };
}

export function journalRoutes(): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.get('/requests', async (c) => {
    const query = validateQuery(journalQuerySchema, c.req.query());
    const entries = await c.get('services').journal.list(c.get('merchant').payeeId, {
      limit: query.limit,
      ...(query.method ? { method: query.method.toUpperCase() } : {}),
      ...(query.path ? { path: query.path } : {}),
      ...(query.status ? { status: query.status } : {}),
    });
    return ok(c, `${entries.length} journaled request${entries.length === 1 ? '' : 's'}, newest first.`, { requests: entries.map(entryView) });
  });

  routes.delete('/requests', async (c) => {
    const erased = await c.get('services').journal.clear(c.get('merchant').payeeId);
    return ok(c, `Erased ${erased} journaled request${erased === 1 ? '' : 's'}.`, { deleted: erased });
  });

  return routes;
}
