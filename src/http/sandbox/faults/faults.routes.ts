/** Contracts of the fault rules: list, add, delete one or all. */
import { z } from 'zod';
import { BODY_ANSWERS, KEYED_ANSWERS, answers, json, okBody, requestHeaders } from '../../contract/answers.js';
import { defineRoute } from '../../contract/route.js';
import { faultRuleSchema } from '../../schemas.js';

const tag = 'Sandbox control';

/** The schema of ruleView. */
export const ruleViewSchema = z.object({
  id: z.string(),
  match: z.object({ method: z.string(), path: z.string() }),
  fault: z.string(),
  probability: z.number().min(0).max(1),
  times_left: z.number().int().nullable().meta({ description: 'How many more times it may fire; null is unlimited' }),
  seed: z.number().int(),
  matched: z.number().int().meta({ description: 'Matching requests seen' }),
  fired: z.number().int(),
}).meta({ id: 'FaultRule' });

export const list = defineRoute({
  method: 'get',
  path: '/faults',
  summary: 'List fault rules',
  description: "This merchant's fault rules, each with its match, fault, remaining times and probability.",
  tag,
  access: 'key',
  responses: { 200: json('The rules.', okBody({ rules: z.array(ruleViewSchema) })), ...KEYED_ANSWERS },
});

export const add = defineRoute({
  method: 'post',
  path: '/faults',
  summary: 'Add a fault rule: matching public requests get the fault (seeded draws)',
  description:
    'Rules apply to the public API only: match.path is a full path under /openapi/v1/ or /v1/, with * matching any run of characters ' +
    '(/ included). A path no public request can match (a control route such as /sandbox/v1/payments, or /x) is a 400: the rule would never fire.',
  tag,
  access: 'key',
  request: { headers: { 'Idempotency-Key': requestHeaders.idempotencyKey }, body: { schema: faultRuleSchema, required: true } },
  responses: {
    200: json('The rule added.', okBody({ rule: ruleViewSchema })),
    402: answers.refused,
    ...BODY_ANSWERS,
    ...KEYED_ANSWERS,
  },
});

export const removeAll = defineRoute({
  method: 'delete',
  path: '/faults',
  summary: 'Delete every fault rule',
  description: 'Removes every fault rule of this merchant; its public requests are answered normally again.',
  tag,
  access: 'key',
  responses: { 200: json('How many were deleted.', okBody({ deleted: z.number().int().min(0) })), ...KEYED_ANSWERS },
});

export const remove = defineRoute({
  method: 'delete',
  path: '/faults/{rule_id}',
  summary: 'Delete one fault rule',
  description: "Removes the fault rule with this id; an unknown id (or another merchant's) answers 404.",
  tag,
  access: 'key',
  request: { params: z.object({ rule_id: z.string().meta({ description: 'id of the rule, as listed' }) }) },
  responses: { 200: json('Deleted.', okBody({ deleted: z.literal(1) })), 404: answers.notFound, ...KEYED_ANSWERS },
});
