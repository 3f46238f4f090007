/** The HTTP layer answers 503: a database down or a full disk is no fault of the client's. */
export class StoreUnavailableError extends Error {
  constructor(
    message: string,
    /** The connection died mid-call: a change may have been committed. */
    readonly outcomeUnknown: boolean,
    /** When the database's words are not for the client. */
    readonly forClient?: string,
  ) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}

/** A password never reaches a banner, a log line or an error. */
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
