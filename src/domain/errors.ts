/**
 * The one error the domain and the services raise: what went wrong, in the sandbox's words.
 * http/errors.ts alone turns it into an envelope code, an HTTP status and headers.
 */
export interface FieldError {
  readonly field: string;
  readonly message: string;
}

/**
 * What went wrong, in the sandbox's own words. The domain and the services say which kind; only
 * http/errors.ts knows the envelope `code`, the HTTP status and the headers of each.
 */
export type ErrorKind =
  /** The request is wrong; the description says what would be right. */
  | 'invalid'
  /** The key or the signature is missing or wrong. */
  | 'unauthenticated'
  /** Valid, but it cannot be done now: the payment's state, a duplicate, a cap, a key in progress. */
  | 'refused'
  | 'not_found'
  | 'body_too_large'
  | 'unsupported_media_type'
  /** The path is longer than any route (http/middleware/path-length.ts). */
  | 'uri_too_long'
  /** Over a limit: `retryAfterSeconds` says when to try again. */
  | 'rate_limited'
  /** A failure the merchant asked for with a magic value (nothing is stored). */
  | 'injected_internal_error'
  | 'injected_unavailable';

/** The one error type of the sandbox; http/errors.ts maps it to the envelope in one place. */
export class SandboxError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly description: string,
    /** Fields the envelope carries beside code and description (errors, payment_id, signature_hint...). */
    readonly details: Readonly<Record<string, unknown>> = {},
    readonly retryAfterSeconds?: number,
  ) {
    super(description);
    this.name = 'SandboxError';
  }

  static invalid(description: string, errors?: readonly FieldError[]): SandboxError {
    return new SandboxError('invalid', description, errors ? { errors } : {});
  }

  static notFound(description: string): SandboxError {
    return new SandboxError('not_found', description);
  }

  static refused(description: string, details: Readonly<Record<string, unknown>> = {}): SandboxError {
    return new SandboxError('refused', description, details);
  }

  static unauthenticated(description: string, details: Readonly<Record<string, unknown>> = {}): SandboxError {
    return new SandboxError('unauthenticated', description, details);
  }

  static rateLimited(description: string, retryAfterSeconds: number): SandboxError {
    return new SandboxError('rate_limited', description, {}, retryAfterSeconds);
  }
}
