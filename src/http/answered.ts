/**
 * What a handler says of its answer (a create, a status read), so the readiness evidence needs
 * not parse the bodies: the handler owns this variable, the record reads it when completed.
 */
import type { Context } from 'hono';
import type { AnsweredFacts } from '../domain/readiness.js';
import type { AppEnv } from './context.js';

export interface AnsweredVariables {
  answered: AnsweredFacts | undefined;
}

/** Says what this request's answer is about (set once the change or the read is done). */
export function tellAnswered(c: Context<AppEnv>, facts: AnsweredFacts): void {
  c.set('answered', facts);
}

export function answeredOf(c: Context<AppEnv>): AnsweredFacts | undefined {
  return c.get('answered');
}
