/**
 * Paths over MAX_PATH_LENGTH answer 414 before anything else looks at them: no route is that
 * long, and fault-rule globs, the journal and the log are matched or written per path character.
 */
import { SandboxError } from '../../domain/errors.js';

export const MAX_PATH_LENGTH = 2048;

/** The length of the path as sent (percent-escapes counted as written, the query left out). */
export function sentPathLength(url: string): number {
  const scheme = url.indexOf('://');
  const start = url.indexOf('/', scheme < 0 ? 0 : scheme + 3);
  if (start < 0) return 0;
  const query = url.indexOf('?', start);
  return (query < 0 ? url.length : query) - start;
}

/** The 414 of a path over MAX_PATH_LENGTH, or undefined. */
export function longPathRefusal(url: string): SandboxError | undefined {
  const length = sentPathLength(url);
  if (length <= MAX_PATH_LENGTH) return undefined;
  return new SandboxError(
    'uri_too_long',
    `The request path is ${length} characters long, over the limit of ${MAX_PATH_LENGTH}: no route of the sandbox is that long (a payment_id has 26 characters); check how the URL is built, and send data in the body or the query, not the path.`,
  );
}
