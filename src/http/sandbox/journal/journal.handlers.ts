/** The request journal's handlers: GET lists (newest first, filters), DELETE empties it. */
import { maskedBodyText } from '../../../services/journal.js';
import type { JournalEntry } from '../../../services/journal.js';
import type { AppEnv } from '../../context.js';
import { queryOf } from '../../contract/input.js';
import type { RouteHandler } from '../../contract/route.js';
import { ok } from '../../envelope.js';
import { RawJson } from '../../json-text.js';
import * as routes from './journal.routes.js';

/** A kept body as shown: its own JSON text when it is JSON (parsed and written again, 10.50 would read 10.5), else the text as a string. */
function bodyView(kept: string | null): unknown {
  const text = maskedBodyText(kept);
  if (text === null) return null;
  try {
    JSON.parse(text);
    return new RawJson(text);
  } catch {
    return text;
  }
}

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
    request_body: bodyView(e.requestBody),
    response_body: bodyView(e.responseBody),
  };
}

export const list: RouteHandler<typeof routes.list, AppEnv> = async (c) => {
  const query = queryOf(c, routes.list);
  const entries = await c.get('services').journal.list(c.get('merchant').payeeId, {
    limit: query.limit,
    ...(query.method ? { method: query.method.toUpperCase() } : {}),
    ...(query.path ? { path: query.path } : {}),
    ...(query.status ? { status: query.status } : {}),
  });
  const off = c.get('services').journal.enabled ? '' : ' The journal is off on this sandbox (SANDBOX_JOURNAL=off): no request is recorded.';
  return ok(c, `${entries.length} journaled request${entries.length === 1 ? '' : 's'}, newest first.${off}`, { requests: entries.map(entryView) });
};

export const clear: RouteHandler<typeof routes.clear, AppEnv> = async (c) => {
  const erased = await c.get('services').journal.clear(c.get('merchant').payeeId);
  return ok(c, `Erased ${erased} journaled request${erased === 1 ? '' : 's'}.`, { deleted: erased });
};
