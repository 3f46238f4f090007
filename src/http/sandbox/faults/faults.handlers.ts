/** Fault rule handlers: GET lists, POST adds, DELETE removes one or all. */
import type { Context } from 'hono';
import type { FaultRule } from '../../../domain/faults.js';
import { globsOverlap } from '../../../domain/path-glob.js';
import { PUBLIC_PREFIXES } from '../../../domain/public-api.js';
import { paymentRoutes } from '../../api/payments/payments.routes.js';
import type { AppEnv } from '../../context.js';
import { bodyOf } from '../../contract/input.js';
import type { RouteHandler } from '../../contract/route.js';
import { ok } from '../../envelope.js';
import { editDistance } from '../../unknown-fields.js';
import { warn } from '../../warnings.js';
import * as routes from './faults.routes.js';

/** The public routes as rule globs: under each prefix, each path parameter a star. */
const PUBLIC_ROUTES = Object.values(paymentRoutes([])).flatMap((route) =>
  PUBLIC_PREFIXES.map((prefix) => ({ method: route.method.toUpperCase(), path: `${prefix}${route.path.replace(/\{\w+\}/g, '*')}` })),
);

/** Edits a typo in a path may take and still be suggested. */
const NEAR_EDITS = 10;

/** Why `rule` never fires (no public route serves its method at its path), else undefined; with the route meant, when one is near. */
function neverFires({ method, path }: FaultRule['match']): string | undefined {
  const atPath = PUBLIC_ROUTES.filter((route) => globsOverlap(path, route.path));
  const served = (route: { method: string }) => method === '*' || route.method === method || (method === 'HEAD' && route.method === 'GET');
  if (atPath.some(served)) return undefined;
  const shown = `match ${method} ${JSON.stringify(path)}`;
  if (atPath.length > 0) return `${shown} never fires: no public route takes ${method} there (${[...new Set(atPath.map((r) => r.method))].join(', ')} does)`;
  const near = PUBLIC_ROUTES.filter(served)
    .map((route) => ({ path: route.path, edits: editDistance(path, route.path, NEAR_EDITS) }))
    .sort((x, y) => x.edits - y.edits)[0];
  return `${shown} never fires: no public route is at that path${near && near.edits <= NEAR_EDITS ? ` (did you mean ${JSON.stringify(near.path)}?)` : ''}`;
}

/** Checking a path against the routes draws on the instance's budget for costly work, as a did-you-mean does. */
function warnIfNeverFires(c: Context<AppEnv>, rule: FaultRule): void {
  const payeeId = c.get('merchant').payeeId;
  const checked = c.get('services').costlyWork.run(payeeId, () => neverFires(rule.match) ?? null);
  if (checked === undefined) warn(c, ["match.path not checked against the routes: that draws on this instance's CPU budget for costly work, and this merchant's share is spent"]);
  else if (checked !== null) warn(c, [checked]);
}

function ruleView(rule: FaultRule): Record<string, unknown> {
  return {
    id: rule.id,
    match: rule.match,
    fault: rule.fault,
    probability: rule.probability,
    times_left: rule.timesLeft,
    seed: rule.seed,
    matched: rule.matched,
    fired: rule.fired,
  };
}

export const list: RouteHandler<typeof routes.list, AppEnv> = async (c) => {
  const rules = await c.get('services').faultRules.list(c.get('merchant'));
  return ok(c, `${rules.length} fault rule${rules.length === 1 ? '' : 's'}.`, { rules: rules.map(ruleView) });
};

export const add: RouteHandler<typeof routes.add, AppEnv> = async (c) => {
  const input = await bodyOf(c, routes.add);
  const rule = await c.get('services').faultRules.add(c.get('merchant'), {
    method: input.match.method,
    path: input.match.path,
    fault: input.fault,
    probability: input.probability,
    times: input.times ?? null,
    seed: input.seed ?? undefined,
  });
  warnIfNeverFires(c, rule);
  return ok(c, `Fault rule ${rule.id} added: ${rule.match.method} ${rule.match.path} gets ${rule.fault}.`, { rule: ruleView(rule) });
};

export const removeAll: RouteHandler<typeof routes.removeAll, AppEnv> = async (c) => {
  const removed = await c.get('services').faultRules.remove(c.get('merchant'));
  return ok(c, `Deleted ${removed} fault rule${removed === 1 ? '' : 's'}.`, { deleted: removed });
};

export const remove: RouteHandler<typeof routes.remove, AppEnv> = async (c) => {
  await c.get('services').faultRules.remove(c.get('merchant'), c.req.param('rule_id'));
  return ok(c, `Deleted fault rule ${c.req.param('rule_id')}.`, { deleted: 1 });
};
