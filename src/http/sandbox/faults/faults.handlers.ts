/** Fault rule handlers: GET lists, POST adds, DELETE removes one or all. */
import type { FaultRule } from '../../../domain/faults.js';
import type { AppEnv } from '../../context.js';
import { bodyOf } from '../../contract/input.js';
import type { RouteHandler } from '../../contract/route.js';
import { ok } from '../../envelope.js';
import * as routes from './faults.routes.js';

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
