/** Contracts of the merchant's sandbox clock: read it, move it forward. */
import { z } from 'zod';
import { BODY_ANSWERS, KEYED_ANSWERS, answers, json, okBody, requestHeaders } from '../../contract/answers.js';
import { defineRoute } from '../../contract/route.js';
import { advanceClockSchema } from '../../schemas.js';

const tag = 'Sandbox control';
const clockShape = {
  now: z.number().int().meta({ description: 'Sandbox time of this merchant, Unix seconds' }),
  now_iso: z.string(),
  offset_seconds: z.number().int().meta({ description: 'How far the clock runs ahead of real time' }),
};

export const read = defineRoute({
  method: 'get',
  path: '/clock',
  summary: "The merchant's sandbox time",
  description: "This merchant's clock: real time plus the offset it was advanced by, in Unix seconds. Expiry, delayed payers and auto-settlement follow it.",
  tag,
  access: 'key',
  responses: { 200: json('The clock.', okBody(clockShape)), ...KEYED_ANSWERS },
});

export const advance = defineRoute({
  method: 'post',
  path: '/clock/advance',
  summary: 'Move the clock forward and run what falls due (expiries, delayed payers, settlement)',
  description: "Adds seconds to this merchant's clock (it only moves forward) and, before answering, runs everything that fell due on the way: expiries, payers that pay later, the daily settlement. Other merchants' clocks do not move.",
  tag,
  access: 'key',
  request: { headers: { 'Idempotency-Key': requestHeaders.idempotencyKey }, body: { schema: advanceClockSchema, required: true } },
  responses: {
    200: json('The clock after the move, and how many payments changed.', okBody({ ...clockShape, changed: z.number().int().min(0) })),
    ...BODY_ANSWERS,
    ...KEYED_ANSWERS,
    402: answers.refused,
  },
});
