/**
 * A validating proxy: an HTTP server that forwards every request to the sandbox and checks the
 * request and the answer against the OpenAPI document with openapi-backend (Ajv, JSON Schema
 * 2020-12), as a contract tool placed in front of a service does. It records violations:
 *
 * - response: the status, media type, body or headers are not what the document declares for
 *   the operation (a status not declared, a Content-Type not declared, a body the schema refuses,
 *   a required header missing);
 * - stricter: the document refuses the request (schema, media type, missing body or key) but the
 *   server accepted it (2xx or 3xx);
 * - looser: the document accepts the request but the server refused a field with a 400 that
 *   names it, other than by the few rules no JSON Schema can state (SERVER_ONLY_RULES);
 * - unknown path: a path outside the document answered anything but the 404 envelope;
 * - not served: a method the document lists no operation for, on a path it has, answered other
 *   than its shared 405 (components/responses/MethodNotAllowed, Allow naming the listed methods)
 *   or an answer every request may meet first (408, 429, 431, 500, 503).
 */
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Ajv2020 from 'ajv/dist/2020.js';
import { OpenAPIBackend } from 'openapi-backend';
import type { Document, Operation } from 'openapi-backend';

export interface Violation {
  readonly kind: 'response' | 'stricter' | 'looser' | 'unknown path' | 'not served';
  readonly exchange: string;
  readonly detail: string;
}

export interface Exchange {
  readonly method: string;
  readonly path: string;
  /** The operation matched, or undefined for a path the document does not have. */
  readonly operationId: string | undefined;
  readonly requestValid: boolean;
  readonly requestErrors: readonly string[];
  /** The status answered; 'dropped' when the connection closed without an answer. */
  readonly status: number | 'dropped' | 'client gone';
}

export interface ValidatingProxy {
  readonly url: string;
  readonly violations: Violation[];
  readonly exchanges: Exchange[];
  close(): Promise<void>;
}

/**
 * Rules the server checks that no JSON Schema can state: which payee belongs to the key, the
 * serialized size of metadata, Unicode well-formedness. A 400 for one of them is not a loose document.
 */
const SERVER_ONLY_RULES: readonly RegExp[] = [/payee id of this API key/, /8 KiB as JSON/, /lone surrogate/];

type Json = Record<string, unknown>;

const essence = (contentType: string | undefined): string => (contentType ?? '').split(';')[0]!.trim().toLowerCase();

function errorsText(errors: readonly { instancePath?: string; message?: string; params?: unknown }[] | null | undefined): string[] {
  return (errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params ?? {})}`.trim());
}

function responseOf(operation: Operation, status: number): Json | undefined {
  const responses = (operation.responses ?? {}) as Record<string, Json>;
  return responses[String(status)] ?? responses[`${Math.floor(status / 100)}XX`] ?? responses.default;
}

async function readAll(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * openapi-backend checks a definition against the OpenAPI 3.0 schema only, and this document is
 * 3.1 (const, type arrays): the document itself is checked by a 3.1 validator in
 * test/http/contract/document.test.ts; routing and Ajv validation here handle 3.1 as they are.
 */
class OpenApi31Backend extends OpenAPIBackend {
  override validateDefinition(): Document {
    return this.document as Document;
  }
}

export async function startValidatingProxy(document: Document, upstream: string): Promise<ValidatingProxy> {
  const api = new OpenApi31Backend({
    definition: document,
    strict: true,
    // The server routes strictly (/docs and /docs/ are two routes): so does the proxy.
    ignoreTrailingSlashes: false,
    // Validators compiled when an operation is first met, not all 220 up front (seconds of Ajv).
    quick: true,
    // OpenAPI 3.1 schemas are JSON Schema 2020-12: Ajv's 2020 dialect, formats as openapi-backend registers them.
    customizeAjv: (original, ajvOpts) => {
      const ajv = new Ajv2020.default({ ...ajvOpts, strict: false, allErrors: true });
      for (const [name, format] of Object.entries((original as unknown as { formats: Record<string, never> }).formats)) ajv.addFormat(name, format);
      return ajv as unknown as typeof original;
    },
  });
  await api.init();
  const violations: Violation[] = [];
  const exchanges: Exchange[] = [];
  const target = new URL(upstream);

  function checkRequest(operation: Operation, req: IncomingMessage, path: string, query: string, body: Buffer): string[] {
    const text = body.toString('utf8');
    const headers = req.headers as Record<string, string | string[]>;
    const errors = errorsText(api.validateRequest({ method: req.method!, path, query, headers, ...(body.length ? { body: text } : {}) }, operation).errors);
    const declared = operation.requestBody as { required?: boolean; content?: Json } | undefined;
    if (declared?.content && body.length > 0 && !(essence(req.headers['content-type']) in declared.content)) {
      errors.push(`body sent as ${JSON.stringify(req.headers['content-type'] ?? null)}, not one of ${Object.keys(declared.content).join(', ')}`);
    }
    if (declared?.required && text.trim() === '') errors.push('the required body is missing');
    const security = (operation.security ?? []) as Json[];
    const keyed = security.length > 0 && security.every((alternative) => 'ServiceApiKey' in alternative);
    if (keyed && !req.headers['service-api-key']) errors.push('the Service-Api-Key the operation requires is missing');
    return errors;
  }

  function checkResponse(operation: Operation, status: number, headers: IncomingHttpHeaders, body: Buffer): string[] {
    const declared = responseOf(operation, status);
    if (!declared) return [`status ${status} is not declared`];
    const problems: string[] = [];
    const content = declared.content as Json | undefined;
    const media = essence(headers['content-type']);
    if (!content) {
      if (body.length > 0) problems.push(`a ${status} declares no body, but ${body.length} bytes of ${media} came`);
    } else if (!(media in content)) {
      problems.push(`Content-Type ${JSON.stringify(headers['content-type'] ?? null)} is not declared for ${status} (declared: ${Object.keys(content).join(', ')})`);
    } else if (media === 'application/json') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        problems.push(`a ${status} declared as JSON is not JSON`);
      }
      if (parsed !== undefined) problems.push(...errorsText(api.validateResponse(parsed, operation, status).errors).map((e) => `body: ${e}`));
    }
    // The headers sent are checked against their schemas; the required ones must be there.
    const flat = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));
    problems.push(...errorsText(api.validateResponseHeaders(flat, operation, { statusCode: status, setMatchType: 'any' as never }).errors).map((e) => `headers: ${e}`));
    for (const [name, header] of Object.entries((declared.headers ?? {}) as Record<string, { required?: boolean }>)) {
      if (header.required && flat[name.toLowerCase()] === undefined) problems.push(`the required header ${name} is missing`);
    }
    return problems;
  }

  /** Compares what the document said of the request with what the server did with it. */
  function compare(exchange: string, requestErrors: readonly string[], status: number, headers: IncomingHttpHeaders, body: Buffer): void {
    if (requestErrors.length > 0 && status < 400) {
      violations.push({ kind: 'stricter', exchange, detail: `the document refuses the request (${requestErrors.join('; ')}) but the server answered ${status}` });
    }
    if (requestErrors.length === 0 && status === 400 && essence(headers['content-type']) === 'application/json') {
      const answer = JSON.parse(body.toString('utf8')) as { description?: string; errors?: { field: string; message: string }[] };
      const fields = (answer.errors ?? []).filter((e) => !SERVER_ONLY_RULES.some((rule) => rule.test(e.message)));
      if (fields.length > 0) violations.push({ kind: 'looser', exchange, detail: `the document accepts the request, the server refused it: ${JSON.stringify(fields)}` });
    }
  }

  /** The methods the document lists for this path (empty when it does not have the path). */
  function listedMethods(path: string): string[] {
    return ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'].filter((method) => api.matchOperation({ method, path, headers: {} }) !== undefined);
  }

  /** A method no operation lists, on a path the document has: what the document's text and MethodNotAllowed answer say. */
  function checkNotServed(listed: readonly string[], status: number, headers: IncomingHttpHeaders, body: Buffer): string[] {
    const responses = ((document.components ?? {}) as { responses?: Record<string, Json> }).responses ?? {};
    const byStatus: Record<number, string> = { 405: 'MethodNotAllowed', 408: 'RequestTimeout', 429: 'RateLimited', 431: 'HeadersTooLarge', 500: 'Internal', 503: 'Unavailable' };
    const name = byStatus[status];
    if (!name || !responses[name]) return [`status ${status} is neither the 405 of a method not served nor an answer that may come first`];
    const schema = ((responses[name].content as Json)['application/json'] as Json).schema as Json;
    const problems: string[] = [];
    if (essence(headers['content-type']) !== 'application/json') problems.push(`a ${status} that is not JSON`);
    else if (!ajvForShared.validate({ ...schema, components: document.components }, JSON.parse(body.toString('utf8')))) problems.push(...errorsText(ajvForShared.errors).map((e) => `body: ${e}`));
    const allow = (headers.allow ?? '').split(', ').sort().join(', ');
    if (status === 405 && allow !== [...listed].sort().join(', ')) problems.push(`Allow ${JSON.stringify(headers.allow ?? null)} is not the methods the document lists (${listed.join(', ')})`);
    return problems;
  }
  const ajvForShared = new Ajv2020.default({ strict: false, allErrors: true });

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const exchange = `${req.method} ${url.pathname}${url.search}`;
    const body = await readAll(req);
    const operation = api.matchOperation({ method: req.method!, path: url.pathname, headers: req.headers as Record<string, string> });
    const requestErrors = operation ? checkRequest(operation, req, url.pathname, url.search, body) : [];
    const record = (status: Exchange['status']) =>
      exchanges.push({ method: req.method!, path: url.pathname, operationId: operation?.operationId, requestValid: requestErrors.length === 0, requestErrors, status });

    const headers = { ...req.headers, host: target.host };
    const outgoing = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, async (answer) => {
      const answerBody = await readAll(answer);
      const status = answer.statusCode ?? 0;
      record(status);
      const listed = operation ? [] : listedMethods(url.pathname);
      if (!operation && listed.length > 0) {
        for (const detail of checkNotServed(listed, status, answer.headers, answerBody)) violations.push({ kind: 'not served', exchange: `${exchange} -> ${status}`, detail });
      } else if (!operation) {
        const envelope = essence(answer.headers['content-type']) === 'application/json' ? (JSON.parse(answerBody.toString('utf8')) as { code?: number }) : undefined;
        if (status !== 404 || envelope?.code !== 404) violations.push({ kind: 'unknown path', exchange, detail: `a path the document does not have answered ${status}, not the 404 envelope` });
      } else {
        for (const detail of checkResponse(operation, status, answer.headers, answerBody)) violations.push({ kind: 'response', exchange: `${exchange} -> ${status}`, detail });
        compare(exchange, requestErrors, status, answer.headers, answerBody);
      }
      res.writeHead(status, answer.rawHeaders);
      res.end(answerBody);
    });
    // A held answer ends when the client gives up: pass its leaving on to the sandbox.
    res.on('close', () => {
      if (!res.writableFinished) {
        outgoing.destroy();
        record('client gone');
      }
    });
    // A dropped connection (the drop fault) reaches the client as a dropped connection too.
    outgoing.on('error', () => {
      if (!res.headersSent) {
        record('dropped');
        res.destroy();
      }
    });
    outgoing.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    violations,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Violations as lines for an assertion message. */
export function describeViolations(violations: readonly Violation[]): string {
  return violations.map((v) => `[${v.kind}] ${v.exchange}: ${v.detail}`).join('\n');
}
