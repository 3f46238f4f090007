/** A route's input, read and validated with the schemas of its contract (so the document and the checks are one). */
import type { Context } from 'hono';
import type { z } from 'zod';
import { readJsonObject, validate, validateQuery } from '../body.js';
import type { AppEnv } from '../context.js';

interface WithBody<S extends z.ZodObject> {
  readonly request: { readonly body: { readonly schema: S; readonly required: boolean } };
}

/** The JSON body as sent (absent is `{}` when the contract makes the body optional). */
export function rawBodyOf(c: Context<AppEnv>, route: WithBody<z.ZodObject>): Promise<Record<string, unknown>> {
  return readJsonObject(c, !route.request.body.required);
}

/** The body, validated by the contract's schema: a 400 naming each field otherwise. */
export async function bodyOf<S extends z.ZodObject>(c: Context<AppEnv>, route: WithBody<S>): Promise<z.output<S>> {
  return validate(c, route.request.body.schema, await rawBodyOf(c, route));
}

export function queryOf<S extends z.ZodObject>(c: Context<AppEnv>, route: { readonly request: { readonly query: S } }): z.output<S> {
  return validateQuery(c, route.request.query, c.req.query());
}
