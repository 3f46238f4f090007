/**
 * A route's contract: what it takes (path, query, headers, body) and every answer it can give,
 * with status, media type and headers. Handlers are bound with their contract, which validates
 * their input (http/body.ts) and from which /openapi.json is generated (contract/document.ts),
 * so the document cannot describe a route other than the one that runs.
 */
import type { Context, Env, Handler, Hono } from 'hono';
import type { z } from 'zod';

export type Method = 'get' | 'put' | 'post' | 'delete';

/** Who may call: a merchant's Service-Api-Key, anyone, or anyone unless SANDBOX_ADMIN_TOKEN (admin) or SANDBOX_METRICS_TOKEN (metrics) is set. */
export type Access = 'key' | 'open' | 'admin' | 'metrics';

/** A JSON Schema written by hand, where no zod schema validates (headers, binary bodies). */
export type JsonSchema = Readonly<Record<string, unknown>>;

export interface HeaderContract {
  readonly description: string;
  readonly required: boolean;
  readonly schema: JsonSchema;
}

export interface AnswerContract {
  readonly description: string;
  /** Media type (without parameters) to the schema of the body; no content for 303 and 304. */
  readonly content?: Readonly<Record<string, z.ZodType | JsonSchema>>;
  readonly headers?: Readonly<Record<string, HeaderContract>>;
}

/** A status, a range, or default: any status not listed (one answer for several, such as the payer page's 402 and 404). */
export type StatusKey = number | '4XX' | '5XX' | 'default';

export interface RequestContract {
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  /** Request headers the route reads (Sandbox-Fault, Idempotency-Key, If-None-Match). */
  readonly headers?: Readonly<Record<string, HeaderContract>>;
  readonly body?: { readonly schema: z.ZodObject; readonly required: boolean; readonly description?: string };
}

export interface RouteContract {
  readonly method: Method;
  /** OpenAPI form, relative to where the router is mounted: /payments/payment/{payment_id}. */
  readonly path: string;
  readonly summary: string;
  /** What it does and what it answers, in a sentence or two: every operation of the document has one. */
  readonly description: string;
  readonly tag: string;
  readonly access: Access;
  readonly request?: RequestContract;
  readonly responses: Readonly<Partial<Record<StatusKey, AnswerContract>>>;
}

/** Keeps the literal types of a contract (its body schema, its path) for the handler. */
export function defineRoute<const R extends RouteContract>(route: R): R {
  return route;
}

/** /payments/payment/{payment_id} as Hono writes it: /payments/payment/:payment_id. */
export type HonoPath<P extends string> = P extends `${infer Head}{${infer Name}}${infer Tail}` ? `${Head}:${Name}${HonoPath<Tail>}` : P;

export const honoPath = <P extends string>(path: P): HonoPath<P> => path.replace(/\{(\w+)\}/g, ':$1') as HonoPath<P>;

/** The handler of a contract: its path parameters are typed from the contract's path. */
export type RouteHandler<R extends RouteContract, E extends Env> = (c: Context<E, HonoPath<R['path']>>) => Response | Promise<Response>;

/** Which contract each bound handler serves; the document walks the app's routes through it. */
const contracts = new WeakMap<object, RouteContract>();

export function contractOf(handler: object): RouteContract | undefined {
  return contracts.get(handler);
}

/**
 * Registers `handler` for its contract's method and path on `app`. The handler itself is
 * registered (no wrapper), so a route costs nothing for having a contract.
 */
export function bindRoute<E extends Env, R extends RouteContract>(app: Hono<E>, route: R, handler: RouteHandler<R, E>): void {
  contracts.set(handler, route);
  app.on(route.method.toUpperCase(), honoPath(route.path), handler as unknown as Handler<E>);
}
