/**
 * The OpenAPI 3.1 document, generated from the routes the app serves: each registered handler's
 * contract (contract/route.ts) at the full path Hono mounted it on. Only what is served has an
 * operation: a method a path does not serve answers 405, described once (info.description and
 * components/responses/MethodNotAllowed), so a generated client gets no method that can only fail.
 */
import type { RouterRoute } from 'hono/types';
import { z } from 'zod';
import { answers, headers as sharedHeaders, SERVER_ANSWERS } from './answers.js';
import type { SharedAnswer, SharedHeader } from './answers.js';
import { contractOf } from './route.js';
import type { Access, AnswerContract, HeaderContract, JsonSchema, Method, RouteContract, StatusKey } from './route.js';

type Json = Record<string, unknown>;

export interface DocumentOptions {
  /** servers[0].url: PUBLIC_BASE_URL, or the origin the document was asked from. */
  readonly serverUrl: string;
  readonly version: string;
}

const METHODS: readonly Method[] = ['get', 'put', 'post', 'delete'];
const ALIAS_PREFIX = '/v1/';

/** Wrong methods have no operations: this text (with components/responses/MethodNotAllowed) is their one description. */
const NOT_SERVED_TEXT =
  'Only what is served is listed. A method a path does not serve answers 405 with the MethodNotAllowed answer (components/responses), its Allow header naming the methods the path serves (HEAD wherever GET is); nothing is done and no key is needed. Only the answers every request may meet can come first: the server\'s own 408 and 431, and on a keyed path with a valid key its rate limit (429) or an unreachable store (500, 503). A method outside GET, HEAD, PUT, POST and DELETE answers the same way.';

const TAGS: readonly { name: string; description: string }[] = [
  { name: 'Payments', description: 'The public API of the payment request service, as production serves it under /openapi/v1.' },
  { name: 'Payments (alias)', description: 'The same routes under /v1: served by the sandbox for convenience; production may not serve them (the journal marks such calls).' },
  { name: 'Sandbox control', description: 'Sandbox-only: drive payments through every state, the clock, fault rules, the journal, webhooks.' },
  { name: 'Sandbox tools', description: 'Sandbox-only catalogues and tools: codes, magic values, signatures, QR images.' },
  { name: 'Pages', description: 'HTML pages: the merchant dashboard and the payer page behind checkout_url.' },
  { name: 'Service', description: 'Health, metrics and this reference.' },
];

/**
 * A zod schema as JSON Schema 2020-12 (the dialect of OpenAPI 3.1), worked out once per schema.
 * Schemas given an id (`.meta({ id })`) come out under `defs`, referred to as components/schemas.
 */
interface Converted {
  readonly schema: Json;
  readonly defs: Readonly<Record<string, Json>>;
}

const converted = { input: new WeakMap<z.ZodType, Converted>(), output: new WeakMap<z.ZodType, Converted>() };

function convert(schema: z.ZodType | JsonSchema, io: 'input' | 'output'): Converted {
  if (!(schema instanceof z.ZodType)) return { schema: { ...schema }, defs: {} };
  let out = converted[io].get(schema);
  if (!out) {
    const generated = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as Json;
    const { $schema: _dialect, $defs: defs = {}, ...rest } = JSON.parse(JSON.stringify(generated).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
    converted[io].set(schema, (out = { schema: rest, defs: defs as Record<string, Json> }));
  }
  return out;
}

/** Builds one document; components collect what operations refer to. */
class DocumentBuilder {
  readonly paths: Record<string, Record<string, Json>> = {};
  readonly responses: Record<string, Json> = {};
  readonly headers: Record<string, Json> = {};
  readonly schemas: Record<string, Json> = {};

  toJsonSchema(schema: z.ZodType | JsonSchema, io: 'input' | 'output'): Json {
    const { schema: json, defs } = convert(schema, io);
    // A schema given an id is written once, under components/schemas.
    for (const [id, def] of Object.entries(defs)) this.schemas[id] ??= def;
    return json;
  }

  headerRef(h: HeaderContract): Json {
    const named = h as Partial<SharedHeader>;
    const object = { description: h.description, required: h.required, schema: { ...h.schema } };
    if (!named.name) return object;
    this.headers[named.name] ??= object;
    return { $ref: `#/components/headers/${named.name}` };
  }

  /**
   * A shared answer is written once under components/responses and referred to; optional headers
   * a route adds (Sandbox-Warning, Idempotent-Replayed) go on its own answers only.
   */
  answer(answer: AnswerContract, extraHeaders: Readonly<Record<string, HeaderContract>>): Json {
    const named = (answer as Partial<SharedAnswer>).name;
    if (named) {
      this.responses[named] ??= this.answerObject(answer, {});
      return { $ref: `#/components/responses/${named}` };
    }
    return this.answerObject(answer, extraHeaders);
  }

  private answerObject(answer: AnswerContract, extraHeaders: Readonly<Record<string, HeaderContract>>): Json {
    const content: Json = {};
    for (const [media, schema] of Object.entries(answer.content ?? {})) content[media] = { schema: this.toJsonSchema(schema, 'output') };
    const all = { 'Request-Id': sharedHeaders.requestId, ...answer.headers, ...extraHeaders };
    return {
      description: answer.description,
      headers: Object.fromEntries(Object.entries(all).map(([name, h]) => [name, this.headerRef(h)])),
      ...(answer.content ? { content } : {}),
    };
  }

  operation(route: RouteContract, path: string): Json {
    const alias = path.startsWith(ALIAS_PREFIX);
    const request = route.request ?? {};
    const parameters: Json[] = [];
    const pathNames = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const paramSchemas = request.params ? this.propertiesOf(request.params) : {};
    for (const name of pathNames) parameters.push({ name, in: 'path', required: true, schema: paramSchemas[name] ?? { type: 'string' } });
    if (request.query) {
      const schema = this.toJsonSchema(request.query, 'input');
      const required = new Set((schema.required as string[] | undefined) ?? []);
      for (const [name, s] of Object.entries(this.propertiesOf(request.query))) parameters.push({ name, in: 'query', required: required.has(name), schema: s });
    }
    for (const [name, h] of Object.entries(request.headers ?? {})) parameters.push({ name, in: 'header', description: h.description, required: h.required, schema: { ...h.schema } });

    // Headers every answer of this route may carry, from what the route takes.
    const extra: Record<string, HeaderContract> = {};
    if (request.body) extra['Sandbox-Warning'] = sharedHeaders.sandboxWarning;
    if (request.headers?.['Idempotency-Key']) extra['Idempotent-Replayed'] = sharedHeaders.replayed;
    const responses: Json = {};
    const statuses: Partial<Record<StatusKey, AnswerContract>> = { ...SERVER_ANSWERS, ...withLongPathAnswer(route.responses, path) };
    for (const status of sortedStatuses(statuses)) responses[String(status)] = this.answer(statuses[status]!, extra);

    return {
      summary: alias ? `${route.summary} (alias of /openapi/v1)` : route.summary,
      description: route.description,
      operationId: operationId(route.method, path),
      tags: [alias ? `${route.tag} (alias)` : route.tag],
      security: SECURITY[route.access],
      ...(parameters.length ? { parameters } : {}),
      ...(request.body
        ? {
            requestBody: {
              required: request.body.required,
              ...(request.body.description ? { description: request.body.description } : {}),
              content: { 'application/json': { schema: this.toJsonSchema(request.body.schema, 'input') } },
            },
          }
        : {}),
      responses,
    };
  }

  propertiesOf(schema: z.ZodObject): Record<string, Json> {
    return (this.toJsonSchema(schema, 'input').properties ?? {}) as Record<string, Json>;
  }
}


/** HEAD of a GET path: the same answers with the same headers, and no body (Hono answers it from the GET handler). */
function headOf(get: Record<string, Json>, shared: Readonly<Record<string, Json>>): Json {
  const responses: Record<string, Json> = {};
  for (const [status, answer] of Object.entries(get.responses as Record<string, Json>)) {
    const ref = (answer as { $ref?: string }).$ref;
    const { content: _body, ...rest } = (ref ? shared[ref.slice(ref.lastIndexOf('/') + 1)] : answer) as Record<string, Json>;
    responses[status] = { ...rest, description: `${String(rest.description)} (HEAD: the headers of the GET answer, without its body)` };
  }
  return { ...get, summary: `${String(get.summary)} (HEAD: headers only)`, operationId: `head${String(get.operationId).slice(3)}`, responses };
}

/** What each access asks for; an empty requirement ({}) means the token is needed only when the sandbox sets one. */
const SECURITY: Readonly<Record<Access, Json[]>> = {
  key: [{ ServiceApiKey: [] }],
  admin: [{}, { AdminToken: [] }],
  metrics: [{}, { MetricsToken: [] }],
  open: [],
};

/** Only a path with a parameter can be sent over the path length limit: its operations declare the 414. */
function withLongPathAnswer(statuses: Readonly<Partial<Record<StatusKey, AnswerContract>>>, path: string): Readonly<Partial<Record<StatusKey, AnswerContract>>> {
  return path.includes('{') ? { ...statuses, 414: answers.uriTooLong } : statuses;
}

function sortedStatuses(responses: Readonly<Partial<Record<StatusKey, AnswerContract>>>): StatusKey[] {
  const rank = (s: string) => (s === 'default' ? 1000 : s.endsWith('XX') ? Number(s[0]) * 100 + 99.5 : Number(s));
  return (Object.keys(responses) as StatusKey[]).sort((a, b) => rank(String(a)) - rank(String(b)));
}

function operationId(method: string, path: string): string {
  // A trailing slash makes a path of its own (/docs/ beside /docs): named, so the ids stay unique.
  if (path.length > 1 && path.endsWith('/')) return `${operationId(method, path.slice(0, -1))}Slash`;
  return `${method}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, ch: string | undefined) => (ch ? ch.toUpperCase() : ''))}`;
}

const openApiPath = (honoPath: string): string => honoPath.replace(/:(\w+)/g, '{$1}');

/** The routes of `app.routes` that have a contract, each once, as [full OpenAPI path, contract]. */
function describedRoutes(routes: readonly RouterRoute[]): [string, RouteContract][] {
  const seen = new Set<string>();
  const out: [string, RouteContract][] = [];
  for (const r of routes) {
    const route = contractOf(r.handler);
    if (!route || r.method === 'ALL') continue;
    const path = openApiPath(r.path);
    const key = `${route.method} ${path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push([path, route]);
  }
  return out;
}

export function openApiDocument(routes: readonly RouterRoute[], options: DocumentOptions): Json {
  const builder = new DocumentBuilder();
  for (const [path, route] of describedRoutes(routes)) (builder.paths[path] ??= {})[route.method] = builder.operation(route, path);
  for (const [path, operations] of Object.entries(builder.paths)) {
    if (operations.get) operations.head = headOf(operations.get as Record<string, Json>, builder.responses);
    // Methods in the usual order, so the reference page lists a path's operations the same way each time.
    builder.paths[path] = Object.fromEntries([...METHODS, 'head'].flatMap((m) => (operations[m] ? [[m, operations[m]]] : [])));
  }
  // The one description of every method a path does not serve (the text below points to it).
  builder.answer(answers.methodNotAllowed, {});
  return {
    openapi: '3.1.0',
    info: {
      title: 'payreq-sandbox',
      version: options.version,
      contact: { name: 'payreq-sandbox', url: `${options.serverUrl}/docs` },
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'The payment request service as simulated by payreq-sandbox: the public API under /openapi/v1 (also served under /v1), sandbox-only routes under /sandbox/v1. Every JSON answer carries a numeric code and a description; by default the HTTP status equals code (SANDBOX_HTTP_STATUS=always-200 makes every status 200, which this document does not describe). Amounts are JSON numbers written with exactly two decimals.\n\n' +
        NOT_SERVED_TEXT,
    },
    servers: [{ url: options.serverUrl, description: 'This sandbox (PUBLIC_BASE_URL, or the origin this document was fetched from)' }],
    tags: TAGS,
    paths: builder.paths,
    components: {
      schemas: builder.schemas,
      responses: builder.responses,
      headers: builder.headers,
      securitySchemes: {
        ServiceApiKey: { type: 'apiKey', in: 'header', name: 'Service-Api-Key', description: 'The API key given at enrolment (the demo merchants are listed in the README).' },
        AdminToken: { type: 'http', scheme: 'bearer', description: 'Only when the sandbox runs with SANDBOX_ADMIN_TOKEN: enrolment then needs it.' },
        MetricsToken: { type: 'http', scheme: 'bearer', description: 'Only when the sandbox runs with SANDBOX_METRICS_TOKEN: GET /metrics then needs it.' },
      },
    },
  };
}
