/** The store cannot be reached or written (a database down, a full disk): the HTTP layer answers 503. */
export class StoreUnavailableError extends Error {
  constructor(
    message: string,
    /** True when a change may have been committed before the answer was lost (the connection died mid-call). */
    readonly outcomeUnknown: boolean,
    /** What the client is told, when not the database's words (the file store's full disk). */
    readonly forClient?: string,
  ) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}

/** A URL as it may be shown in a banner, a log line or an error: the password replaced by ***. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    // Not a URL we can parse: show its scheme only, never text that may hold a password.
    return `${url.split(':')[0] ?? 'url'}://(unparsable URL)`;
  }
}
