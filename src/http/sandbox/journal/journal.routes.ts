/** Contracts of the request journal: list (newest first, filters), empty it. */
import { z } from 'zod';
import { KEYED_ANSWERS, answers, json, okBody } from '../../contract/answers.js';
import { defineRoute } from '../../contract/route.js';
import { journalQuerySchema } from '../../schemas.js';

const tag = 'Sandbox control';

/** The schema of entryView. */
export const entryViewSchema = z.object({
  id: z.number().int().min(1).meta({ description: "This merchant's own count of its journaled requests (1, 2, 3... in the order answered); it starts again at 1 once the journal is erased" }),
  request_id: z.string().nullable(),
  at: z.string().meta({ description: 'Real time of the request, ISO 8601' }),
  method: z.string(),
  path: z.string(),
  alias: z.boolean().meta({ description: 'Called under /v1 without /openapi' }),
  note: z.string().optional(),
  status: z.union([z.number().int(), z.enum(['dropped', 'held'])]).meta({
    description: 'The HTTP status answered; "dropped" when a drop fault closed the connection; "held" when a timeout fault holds the answer (journaled once the change is committed, response_body then the answer held back)',
  }),
  code: z.number().int().nullable(),
  latency_ms: z.number(),
  fault: z.string().nullable(),
  warnings: z.array(z.string()),
  request_body: z.unknown().meta({ description: 'As sent (secrets masked); a string when it was not JSON; null when none was read' }),
  response_body: z.unknown().meta({ description: 'As answered (secrets masked); null when dropped; when held, the answer held back' }),
}).meta({ id: 'JournalEntry' });

export const list = defineRoute({
  method: 'get',
  path: '/requests',
  summary: 'The request journal, newest first',
  description: "The requests made with this merchant's key, newest first, each with its method, path, status and what was sent and answered (sign values masked); filter by method, path and status. Entry ids count per merchant.",
  tag,
  access: 'key',
  request: { query: journalQuerySchema },
  responses: { 200: json('The journaled requests.', okBody({ requests: z.array(entryViewSchema) })), 400: answers.invalid, ...KEYED_ANSWERS },
});

export const clear = defineRoute({
  method: 'delete',
  path: '/requests',
  summary: 'Empty the request journal',
  description: "Erases this merchant's request journal; payments and everything else are kept.",
  tag,
  access: 'key',
  responses: { 200: json('How many were erased.', okBody({ deleted: z.number().int().min(0) })), ...KEYED_ANSWERS },
});
