/**
 * The OpenAPI 3.1 document, generated from the routes the app serves: each registered handler's
 * contract (contract/route.ts) at the full path Hono mounted it on. A path the app serves has
 * an operation for every method it answers 405 to, so the document covers those answers too.
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
/** Methods an integrator might try by mistake; each answers 405 where the path does not serve it. */
const NOT_ALLOWED_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const ALIAS_PREFIX = '/v1/';

const TAGS: readonly { name: string; description: string }[] = [
  { name: 'Payments', description: 'The public API of the payment request service, as production serves it under /openapi/v1.' },
  { name: 'Payments (alias)', description: 'The same routes under /v1: served by the sandbox for convenience; production may not serve them (the journal marks such calls).' },
  { name: 'Sandbox control', description: 'Sandbox-only: drive payments through every state, the clock, fault rules, the journal, webhooks.' },
  { name: 'Sandbox tools', description: 'Sandbox-only catalogues and tools: codes, magic values, signatures, QR images.' },
  { name: 'Pages', description: 'HTML pages: the merchant dashboard and the payer page behind checkout_url.' },
  { name: 'Service', description: 'Health, metrics and this reference.' },
  { name: 'Method not allowed', description: 'Each path answers 405 with an Allow header to the methods it does not serve.' },
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
      ...(route.description ? { description: route.description } : {}),
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

  /** What a method the path does not serve answers: 405, or what the path's middleware answers first. */
  notAllowed(method: string, path: string, served: readonly RouteContract[]): Json {
    const keyed = served.some((r) => r.access === 'key');
    const faults = served.some((r) => r.responses['5XX']);
    const statuses: Partial<Record<StatusKey, AnswerContract>> = { 405: answers.methodNotAllowed, ...SERVER_ANSWERS };
    if (keyed) Object.assign(statuses, { 429: answers.rateLimited, 500: answers.internal, 503: answers.storeUnavailable });
    if (keyed && method === 'post') Object.assign(statuses, { 400: answers.invalid, 402: answers.refused, 413: answers.tooLarge });
    if (faults) Object.assign(statuses, { 400: answers.invalid, 504: answers.timeout, '4XX': answers.injected4xx, '5XX': answers.injected5xx });
    const responses: Json = {};
    const all = withLongPathAnswer(statuses, path);
    for (const status of sortedStatuses(all)) responses[String(status)] = this.answer(all[status]!, {});
    const allowed = served.map((r) => r.method.toUpperCase()).join(', ');
    // The path's templated parts, as the operations it serves declare them.
    const params = served[0]?.request?.params ? this.propertiesOf(served[0].request.params) : {};
    const parameters = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: params[name!] ?? { type: 'string' } }));
    return {
      summary: `Not served: ${method.toUpperCase()} answers 405 (this path serves ${allowed})`,
      operationId: `${operationId(method, path)}NotAllowed`,
      tags: ['Method not allowed'],
      security: [],
      ...(parameters.length ? { parameters } : {}),
      responses,
    };
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
  const rank = (s: string) => (s.endsWith('XX') ? Number(s[0]) * 100 + 99.5 : Number(s));
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
  const servedByPath = new Map<string, RouteContract[]>();
  for (const [path, route] of describedRoutes(routes)) {
    (builder.paths[path] ??= {})[route.method] = builder.operation(route, path);
    let served = servedByPath.get(path);
    if (!served) servedByPath.set(path, (served = []));
    served.push(route);
  }
  for (const [path, served] of servedByPath) {
    const methods = new Set<string>(served.map((r) => r.method));
    const get = builder.paths[path]!.get;
    if (get) builder.paths[path]!.head = headOf(get as Record<string, Json>, builder.responses);
    for (const method of NOT_ALLOWED_METHODS) if (!methods.has(method)) builder.paths[path]![method] = builder.notAllowed(method, path, served);
    // Methods in the usual order, so the reference page lists a path's operations the same way each time.
    const operations = builder.paths[path]!;
    builder.paths[path] = Object.fromEntries([...METHODS, 'head', 'patch'].flatMap((m) => (operations[m] ? [[m, operations[m]]] : [])));
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'payreq-sandbox',
      version: options.version,
      description:
        'The payment request service as simulated by payreq-sandbox: the public API under /openapi/v1 (also served under /v1), sandbox-only routes under /sandbox/v1. Every JSON answer carries a numeric code and a description; by default the HTTP status equals code (SANDBOX_HTTP_STATUS=always-200 makes every status 200, which this document does not describe). Amounts are JSON numbers written with exactly two decimals.',
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
