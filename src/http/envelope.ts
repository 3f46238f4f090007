/** The response envelope: every body is a JSON object with a numeric `code` and a `description`. */
import type { Context } from 'hono';
import { Code } from '../domain/codes.js';
import type { ResponseCode } from '../domain/codes.js';
import type { AppEnv } from './context.js';
import type { RequestRecord } from './request-record.js';
import { toJsonText } from './json-text.js';
import { warningsOf } from './warnings.js';

/** The last envelope this request answered, as the journal and the Idempotency-Key keep it: this module owns it. */
export interface AnsweredEnvelope {
  readonly text: string;
  /** Names the text when it is a status text (`<payment id>@<version>`): the journal refers to it instead of copying it. */
  readonly ref: string | undefined;
}

export interface EnvelopeVariables {
  envelope: AnsweredEnvelope | undefined;
}

/** The envelope last answered (undefined when the answer is a page, an image, or none yet). */
export function envelopeOf(c: Context<AppEnv>): AnsweredEnvelope | undefined {
  return c.get('envelope');
}

export interface Envelope {
  readonly code: ResponseCode;
  readonly description: string;
  readonly [field: string]: unknown;
}

/** Header values must be visible ASCII; names sent by clients may hold anything. */
export function asciiHeaderValue(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The Sandbox-Warning header of this request's warnings, for any answer, envelope or not; none without warnings. */
export function warningHeader(c: Context<AppEnv>): Record<string, string> {
  const warnings = warningsOf(c);
  return warnings.length > 0 ? { 'sandbox-warning': asciiHeaderValue(warnings.join('; ')) } : {};
}

export function send(c: Context<AppEnv>, body: Envelope, headers: Record<string, string> = {}): Response {
  return sendText(c, body.code, toJsonText(body), headers);
}

/** Answers an envelope already written as JSON text (`code` is its code); `ref` names a status text. */
export function sendText(c: Context<AppEnv>, code: ResponseCode, text: string, headers: Record<string, string> = {}, ref?: string): Response {
  const services = c.get('services');
  const status = services?.config.httpStatusMode === 'always-200' ? 200 : code;
  // Undefined only outside the app's own layers (a test's bare Hono app).
  const record = c.get('record') as RequestRecord | undefined;
  // A plain record, not a Headers object: @hono/node-server then writes it without copying it
  // into a Headers and back (names are lower-cased as Headers would).
  const out: Record<string, string> = { 'content-type': 'application/json; charset=UTF-8' };
  if (record) out['request-id'] = record.id;
  for (const name of Object.keys(headers)) out[name.toLowerCase()] = headers[name]!;
  Object.assign(out, warningHeader(c));
  c.set('envelope', { text, ref });
  return new Response(text, { status, headers: out });
}

export function ok(c: Context<AppEnv>, description: string, fields: Record<string, unknown> = {}): Response {
  return send(c, { code: Code.OK, description, ...fields });
}

const CODE_PREFIX = '{"code":';

/** The code of an envelope's JSON text: every envelope starts {"code":NNN, so nothing is parsed. */
export function envelopeCodeOf(text: string): number | null {
  if (!text.startsWith(CODE_PREFIX)) return null;
  const code = Number(text.slice(CODE_PREFIX.length, CODE_PREFIX.length + 3));
  return Number.isInteger(code) ? code : null;
}
