/** Contracts of the reference: this document and the page that shows it (offline: swagger-ui's assets from node_modules). */
import { z } from 'zod';
import { answers, html, json, problemBody } from '../contract/answers.js';
import { defineRoute } from '../contract/route.js';

const tag = 'Service';

/** The assets of the reference page, with their media types: nothing else is served. */
export const ASSETS = {
  'swagger-ui.css': 'text/css',
  'swagger-ui-bundle.js': 'text/javascript',
  'swagger-ui-standalone-preset.js': 'text/javascript',
} as const;

export const document = defineRoute({
  method: 'get',
  path: '/openapi.json',
  summary: 'This document, generated from the route contracts',
  description: 'The OpenAPI 3.1 document of this sandbox, generated from the contracts that validate its requests, with servers set to PUBLIC_BASE_URL or the origin it was asked from.',
  tag,
  access: 'open',
  responses: {
    200: {
      description: 'An OpenAPI 3.1 document (not the envelope).',
      content: { 'application/json': { type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: { type: 'string', pattern: '^3\\.1\\.' }, info: { type: 'object' }, paths: { type: 'object' } } } },
    },
    500: answers.internal,
  },
});

export const page = defineRoute({
  method: 'get',
  path: '/docs',
  summary: 'The reference page (works offline)',
  description: 'A browsable reference of this document (Swagger UI), served by the sandbox itself with no external assets.',
  tag,
  access: 'open',
  responses: { 200: html('The reference page.'), 500: answers.internal },
});

export const asset = defineRoute({
  method: 'get',
  path: '/docs/assets/{file}',
  summary: 'An asset of the reference page',
  description: 'A stylesheet or script of the reference page, served from the installed package.',
  tag,
  access: 'open',
  request: { params: z.object({ file: z.enum(Object.keys(ASSETS) as [keyof typeof ASSETS, ...(keyof typeof ASSETS)[]]) }) },
  responses: {
    200: { description: 'The asset (cached a day).', content: { 'text/css': { type: 'string' }, 'text/javascript': { type: 'string' } } },
    404: json('No such asset.', problemBody(404)),
    500: answers.internal,
  },
});
