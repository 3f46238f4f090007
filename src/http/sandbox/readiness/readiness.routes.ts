/** The contract of the go-live readiness report. */
import { z } from 'zod';
import { KEYED_ANSWERS, json, okBody } from '../../contract/answers.js';
import { defineRoute } from '../../contract/route.js';

export const report = defineRoute({
  method: 'get',
  path: '/readiness',
  summary: "Go-live readiness: what this merchant's integration really did, check by check",
  description: "Judges, from what this merchant's integration really did (journal, payments, deliveries), whether it is ready for production: each check with its status (pass, fail or not_tried), whether it is required, the evidence behind it and advice. ready is true exactly when every required check passes.",
  tag: 'Sandbox control',
  access: 'key',
  responses: {
    200: json(
      'ready is true exactly when every required check passes.',
      okBody({
        ready: z.boolean(),
        checks: z.array(
          z.object({
            id: z.string(),
            title: z.string(),
            status: z.enum(['pass', 'fail', 'not_tried']),
            required: z.boolean(),
            evidence: z.array(z.string()).meta({ description: 'The journal entries or payments behind a pass or fail' }),
            advice: z.string().nullable().meta({ description: 'What to do, whenever the status is not pass' }),
          }),
        ),
      }),
    ),
    ...KEYED_ANSWERS,
  },
});

export const junit = defineRoute({
  method: 'get',
  path: '/readiness/junit',
  summary: 'The go-live readiness report as a JUnit XML file, for CI',
  description:
    'The same checks as GET /sandbox/v1/readiness, one testcase each: a required check that does not pass is a failure, an optional one a skipped test; the evidence is each testcase\'s system-out.',
  tag: 'Sandbox control',
  access: 'key',
  responses: {
    200: {
      description: 'The JUnit XML file (Content-Disposition: attachment).',
      content: { 'application/xml': { type: 'string' } },
      headers: { 'Content-Disposition': { description: 'attachment; filename="readiness-<payee_id>.xml"', required: true, schema: { type: 'string' } } },
    },
    ...KEYED_ANSWERS,
  },
});
