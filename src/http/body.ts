/** Reading request bodies: size limit, content type, strict UTF-8, JSON syntax, object shape, schema (unknown fields: unknown-fields.ts). */
import type { Context } from 'hono';
import type { z } from 'zod';
import { SandboxError } from '../domain/errors.js';
import type { FieldError } from '../domain/errors.js';
import type { AppEnv } from './context.js';
import { unknownFieldWarnings } from './unknown-fields.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../domain/json-depth.js';
import { warn } from './warnings.js';

/** The body as this module read it: it owns these, and the record reads `requestBody`. */
export interface BodyVariables {
  /** The body's text once read, within the size limit (the Idempotency-Key and the handler share one read). */
  bodyText: string | undefined;
  /** The body as the handler read it, for the journal: an oversized one is never read at all. */
  requestBody: string | undefined;
}

/** The body the handler read as JSON, as the journal keeps it; undefined when none was read. */
export function requestBodyOf(c: Context<AppEnv>): string | undefined {
  return c.get('requestBody');
}

export const BODY_LIMIT_BYTES = 64 * 1024;
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

async function readLimited(request: Request): Promise<Uint8Array> {
  // Only chunked bodies (no Content-Length) come here; read them with a running count.
  const reader = request.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > BODY_LIMIT_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function tooLarge(): SandboxError {
  return new SandboxError('body_too_large', `The request body is over the limit of ${BODY_LIMIT_BYTES} bytes (64 KiB): send a smaller JSON object.`);
}

function hasBody(c: Context<AppEnv>): boolean {
  const length = c.req.header('content-length');
  if (length !== undefined) return length !== '0';
  if (c.req.header('transfer-encoding') !== undefined) return true;
  // Over HTTP/1.1 a body needs one of those headers; the node adapter still hands every POST a
  // (empty) stream, so only an in-process Request (app.request, the library's fetch) is asked.
  if ((c.env as { incoming?: unknown } | undefined)?.incoming) return false;
  return c.req.raw.body !== null;
}

/**
 * The body's text, read once per request within the size limit (readJsonObject and the
 * idempotency layer both read it); '' when there is none.
 */
export async function readBodyText(c: Context<AppEnv>): Promise<string> {
  const kept = c.get('bodyText');
  if (kept !== undefined) return kept;
  if (!hasBody(c)) return '';
  const length = Number(c.req.header('content-length'));
  if (length > BODY_LIMIT_BYTES) throw tooLarge();
  // Charged before reading when the size is announced, so a merchant over its budget costs little more than the 429.
  if (Number.isFinite(length)) spendBodyBudget(c, length);
  const bytes = Number.isFinite(length) ? new Uint8Array(await c.req.arrayBuffer()) : await readLimited(c.req.raw);
  if (bytes.byteLength > BODY_LIMIT_BYTES) throw tooLarge();
  if (!Number.isFinite(length)) spendBodyBudget(c, bytes.byteLength);
  const text = decodeUtf8(bytes);
  c.set('bodyText', text);
  return text;
}

/**
 * Charges the body to its merchant's bytes a second, before anything parses it (the idempotency
 * layer reads it here too, before it claims a key): over the budget, 429 and nothing is done.
 */
function spendBodyBudget(c: Context<AppEnv>, bytes: number): void {
  const merchant = c.get('merchant');
  if (!merchant) return;
  const budget = c.get('services').bodyBudget;
  const wait = budget.take(merchant.payeeId, bytes);
  if (wait > 0) {
    const kib = Math.round(budget.bytesPerSecond / 1024);
    throw SandboxError.rateLimited(
      `This merchant has sent more than ${kib} KiB of request bodies in the last second on this instance (SANDBOX_MERCHANT_BODY_KB_PER_SECOND), so this ${bytes}-byte body was not read and nothing was done; retry after ${wait} s (see Retry-After). The limit keeps one merchant's large bodies from slowing the others; an integration's usual bodies stay far below it.`,
      wait,
    );
  }
}

/** Strict: a byte that is not UTF-8 is refused, not replaced by U+FFFD (native, and as quick as the lenient decoder). */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    const at = firstNonUtf8Byte(bytes);
    const shown = at < bytes.length ? `byte ${at} (counting from 0) is 0x${bytes[at]!.toString(16).toUpperCase().padStart(2, '0')}` : 'it ends inside a character';
    throw SandboxError.invalid(
      `The body is not valid UTF-8: ${shown}, which cannot stand there. Send the JSON as UTF-8 text (any character may also be written as a \\u escape, e.g. "\\u00e9").`,
    );
  }
}

/**
 * Where the first byte that breaks UTF-8 is (RFC 3629: no overlong forms, no surrogates, nothing
 * past U+10FFFF); bytes.length when the body ends inside a character. Run only on a refused body.
 */
export function firstNonUtf8Byte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    // The continuation bytes that follow this lead, and the range allowed for the first of them.
    let count: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) count = 1;
    else if (lead >= 0xe0 && lead <= 0xef) [count, low, high] = [2, lead === 0xe0 ? 0xa0 : 0x80, lead === 0xed ? 0x9f : 0xbf];
    else if (lead >= 0xf0 && lead <= 0xf4) [count, low, high] = [3, lead === 0xf0 ? 0x90 : 0x80, lead === 0xf4 ? 0x8f : 0xbf];
    else return i;
    for (let k = 1; k <= count; k++) {
      if (i + k >= bytes.length) return bytes.length;
      const next = bytes[i + k]!;
      if (next < (k === 1 ? low : 0x80) || next > (k === 1 ? high : 0xbf)) return i + k;
    }
    i += count + 1;
  }
  return bytes.length;
}

/**
 * The body as a JSON object. With `optional`, an absent body is `{}` (control routes whose
 * fields are all optional); otherwise a body is required.
 */
export async function readJsonObject(c: Context<AppEnv>, optional = false): Promise<Record<string, unknown>> {
  if (!hasBody(c)) {
    if (optional) return {};
    throw SandboxError.invalid('A JSON object body is required, with Content-Type: application/json.');
  }
  const length = Number(c.req.header('content-length'));
  if (length > BODY_LIMIT_BYTES) throw tooLarge();
  const type = c.req.header('content-type');
  if (!type || !JSON_TYPE.test(type)) {
    throw new SandboxError('unsupported_media_type', `Content-Type must be application/json, got ${type ? JSON.stringify(type) : 'none'}: send the body as JSON with that header.`);
  }
  const charset = /;\s*charset\s*=\s*"?([\w-]+)/i.exec(type)?.[1];
  if (charset && !/^utf-?8$/i.test(charset)) {
    throw new SandboxError('unsupported_media_type', `The body must be UTF-8 JSON, got charset ${JSON.stringify(charset)}: send Content-Type: application/json (UTF-8).`);
  }
  const text = await readBodyText(c);
  c.set('requestBody', text);
  if (optional && text.trim() === '') return {};
  // Before parsing: JSON.parse spends several times longer on 64 KiB of [[[...]]] than on a flat body.
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw SandboxError.invalid(`The body is nested more than ${MAX_JSON_DEPTH} levels deep (objects and arrays, metadata included): send flatter JSON.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    const detail = err instanceof SyntaxError ? err.message : 'unreadable';
    throw SandboxError.invalid(`The body is not valid JSON (${detail}): send one complete JSON object.`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw SandboxError.invalid(`The body must be a JSON object ({...}), got ${parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`}.`);
  }
  return parsed as Record<string, unknown>;
}

/**
 * Validates `body` with `schema`; unknown fields, at any level the schema describes, are
 * accepted but named in Sandbox-Warning (with a "did you mean" for a near miss).
 */
export function validate<S extends z.ZodObject>(c: Context<AppEnv>, schema: S, body: Record<string, unknown>): z.output<S> {
  const unknown = unknownWarnings(c, schema, body);
  warn(c, unknown);
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const errors: FieldError[] = result.error.issues.map((issue) => ({ field: issue.path.join('.') || '(body)', message: issue.message }));
  const first = errors[0]!;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more problem${errors.length > 2 ? 's' : ''}, see errors)` : '';
  throw SandboxError.invalid(`Invalid ${first.field}: ${first.message}${more}.`, errors);
}

/**
 * Naming unknown fields is cheap; their did-you-mean costs edit distances, so it draws on the
 * instance's budget for costly work, and without room the fields are named without it.
 */
function unknownWarnings(c: Context<AppEnv>, schema: z.ZodObject, body: Record<string, unknown>, what = 'field'): string[] {
  const plain = unknownFieldWarnings(schema, body, false, what);
  if (plain.length === 0) return plain;
  const budget = c.get('services').costlyWork;
  const payeeId = c.get('merchant')?.payeeId ?? '';
  const suggested = budget.run(payeeId, () => unknownFieldWarnings(schema, body, true, what));
  if (suggested !== undefined) return suggested;
  return [...plain, `did-you-mean suggestions withheld: they draw on this instance's CPU budget for costly work, shared fairly by the merchants using it, and this merchant's share is spent (they come back in about ${budget.waitFor(payeeId)} ms)`];
}

/** Validates `query` with `schema`; unknown parameters are ignored, as by a body's schema, but named in Sandbox-Warning. */
export function validateQuery<S extends z.ZodObject>(c: Context<AppEnv>, schema: S, query: Record<string, string>): z.output<S> {
  warn(c, unknownWarnings(c, schema, query, 'query parameter'));
  const result = schema.safeParse(query);
  if (result.success) return result.data;
  const errors: FieldError[] = result.error.issues.map((issue) => ({ field: issue.path.join('.') || '(query)', message: issue.message }));
  throw SandboxError.invalid(`Invalid query parameter ${errors[0]!.field}: ${errors[0]!.message}.`, errors);
}
