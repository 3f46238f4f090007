/** Fault rules: GET lists, POST adds, DELETE removes one or all. */
import { Hono } from 'hono';
import type { FaultRule } from '../../domain/faults.js';
import { readJsonObject, validate } from '../body.js';
import type { AppEnv } from '../context.js';
import { ok } from '../envelope.js';
import { faultRuleSchema } from '../schemas.js';

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

export function faultRoutes(): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.get('/faults', async (c) => {
    const rules = await c.get('services').faultRules.list(c.get('merchant'));
    return ok(c, `${rules.length} fault rule${rules.length === 1 ? '' : 's'}.`, { rules: rules.map(ruleView) });
  });

  routes.post('/faults', async (c) => {
    const input = validate(c, faultRuleSchema, await readJsonObject(c));
    const rule = await c.get('services').faultRules.add(c.get('merchant'), {
      method: input.match.method,
      path: input.match.path,
      fault: input.fault,
      probability: input.probability,
      times: input.times ?? null,
      seed: input.seed ?? undefined,
    });
    return ok(c, `Fault rule ${rule.id} added: ${rule.match.method} ${rule.match.path} gets ${rule.fault}.`, { rule: ruleView(rule) });
  });

  routes.delete('/faults', async (c) => {
    const removed = await c.get('services').faultRules.remove(c.get('merchant'));
    return ok(c, `Deleted ${removed} fault rule${removed === 1 ? '' : 's'}.`, { deleted: removed });
  });

  routes.delete('/faults/:rule_id', async (c) => {
    await c.get('services').faultRules.remove(c.get('merchant'), c.req.param('rule_id'));
    return ok(c, `Deleted fault rule ${c.req.param('rule_id')}.`, { deleted: 1 });
  });

  return routes;
}
