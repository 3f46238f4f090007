/**
 * `{{...}}` templates in scenario strings. A string that is one template keeps the value's
 * type (`amount: "{{amount}}"` stays a number); inside other text the value is written out.
 *
 *   {{payment_id}}  {{other.payee_id}}  {{env.SHOP_NAME}}      variables, captures, env
 *   {{fresh_ref}}  {{uuid}}  {{now}}                           built-ins, new at each use
 *   {{repeat("x", 70000)}}  {{fresh_ref("order")}}             built-in functions
 */
import { randomUUID } from 'node:crypto';
import { getPath, parsePath, PathSyntaxError } from './json-path.js';

export class TemplateError extends Error {}

export interface TemplateScope {
  readonly vars: ReadonlyMap<string, unknown>;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** A merchant_ref_no never used before in this replay. */
  freshRef(prefix?: string): string;
}

const BUILT_IN_NAMES = ['fresh_ref', 'uuid', 'now', 'env'] as const;
const MAX_REPEAT = 1_000_000;
const TEMPLATE = /\{\{([\s\S]*?)\}\}/g;
const WHOLE = /^\{\{([\s\S]*?)\}\}$/;

/** Renders every string inside `value` (objects and arrays deeply; keys stay as written). */
export function render(value: unknown, scope: TemplateScope): unknown {
  if (typeof value === 'string') return renderString(value, scope);
  if (Array.isArray(value)) return value.map((v) => render(v, scope));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, render(v, scope)]));
  }
  return value;
}

function renderString(text: string, scope: TemplateScope): unknown {
  const whole = WHOLE.exec(text);
  if (whole && !whole[1]!.includes('}}')) return evaluate(whole[1]!.trim(), scope);
  return text.replace(TEMPLATE, (_, expr: string) => asText(evaluate(expr.trim(), scope)));
}

/** A rendered value as text: strings as they are, anything else as JSON. */
export function asText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined');
}

function evaluate(expr: string, scope: TemplateScope): unknown {
  const call = /^([a-z_]+)\(([\s\S]*)\)$/.exec(expr);
  if (call) return callBuiltIn(call[1]!, parseArgs(call[2]!, expr), expr, scope);
  const root = /^[A-Za-z_][A-Za-z0-9_]*/.exec(expr)?.[0];
  if (!root) throw new TemplateError(`{{${expr}}} is not a variable, a path or a built-in call`);
  let segments;
  try {
    segments = parsePath(`$${expr.slice(root.length)}`);
  } catch (err) {
    throw new TemplateError(`{{${expr}}}: ${err instanceof PathSyntaxError ? err.message : String(err)}`);
  }
  if (root === 'env') {
    const name = segments[0];
    const value = typeof name === 'string' ? scope.env[name] : undefined;
    if (value === undefined) throw new TemplateError(`{{${expr}}}: the environment variable ${String(name)} is not set`);
    return value;
  }
  let base: unknown;
  if (scope.vars.has(root)) base = scope.vars.get(root);
  else if (root === 'fresh_ref' || root === 'uuid' || root === 'now') base = callBuiltIn(root, [], expr, scope);
  else {
    const known = [...scope.vars.keys()].sort().join(', ');
    throw new TemplateError(`{{${expr}}}: no variable ${root} (defined so far: ${known || 'none'}; built-ins: ${BUILT_IN_NAMES.join(', ')})`);
  }
  const found = getPath(base, segments);
  if (!found.found) throw new TemplateError(`{{${expr}}}: ${root} has nothing at ${expr.slice(root.length)}`);
  return found.value;
}

function parseArgs(text: string, expr: string): unknown[] {
  try {
    return JSON.parse(`[${text}]`) as unknown[];
  } catch {
    throw new TemplateError(`{{${expr}}}: the arguments must be JSON values, e.g. repeat("x", 10)`);
  }
}

function callBuiltIn(name: string, args: unknown[], expr: string, scope: TemplateScope): unknown {
  switch (name) {
    case 'fresh_ref':
      if (args.length > 1 || (args.length === 1 && typeof args[0] !== 'string')) throw new TemplateError(`{{${expr}}}: fresh_ref takes an optional prefix string`);
      return scope.freshRef(args[0] as string | undefined);
    case 'uuid':
      return randomUUID();
    case 'now':
      return Math.floor(Date.now() / 1000);
    case 'repeat': {
      const [text, count] = args;
      if (typeof text !== 'string' || typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count * text.length > MAX_REPEAT) {
        throw new TemplateError(`{{${expr}}}: repeat takes a string and a whole count, at most ${MAX_REPEAT} characters in all`);
      }
      return text.repeat(count);
    }
    default:
      throw new TemplateError(`{{${expr}}}: no built-in function ${name} (there are fresh_ref, uuid, now, repeat)`);
  }
}
