/**
 * The one logger: what a server operator should see (a store write that failed, a database
 * away and back, an internal error...) as one JSON line each, a short `msg` and named fields.
 * The server passes its pino logger (the request lines' one, on stdout); without one (the
 * library's default, SANDBOX_LOG=off) the lines go to stderr, so no error passes unseen.
 */
import { pino } from 'pino';
import type { DestinationStream } from 'pino';

/** The part of a pino logger the sandbox writes through: named fields first, then a short message. */
export interface Logger {
  debug(fields: object, msg: string): void;
  info(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
  error(fields: object, msg: string): void;
}

let stderrLogger: Logger | undefined;

/** `given`, or else the JSON lines on stderr that every part without a logger shares: the one place that decides the default. */
export function loggerOr(given: Logger | undefined): Logger {
  // Synchronous: these lines are rare, and one written just before a crash must not be lost in a buffer.
  return given ?? (stderrLogger ??= pino({ base: { service: 'payreq-sandbox' } }, pino.destination({ dest: 2, sync: true })));
}

/** An error as fields of a line: its message and errno code, never its stack (which may quote data). */
export function errorFields(err: unknown): { err: string; code?: string } {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? { err: message, code } : { err: message };
}

/** An internal error (a bug): one error line with its message and type; its stack only in a debug line (LOG_LEVEL=debug), as it may quote data. */
export function logInternalError(logger: Logger, err: unknown, fields: object, msg = 'internal error'): void {
  logger.error({ ...fields, ...errorFields(err), type: err instanceof Error ? err.name : typeof err }, msg);
  if (err instanceof Error && err.stack) logger.debug({ ...fields, stack: err.stack }, `${msg}: its stack`);
}

/**
 * Standard output for pino, a turn's request lines as one synchronous write: a write per line cost
 * ~20 % of a status GET, and sonic-boom's asynchronous mode measures the text it holds on every
 * write, copying all of it while a write is under way (2 KB a request line, measured). A warning
 * or an error goes out at once, after what is held; what is held at exit goes out then.
 */
export function stdoutByTurn(): DestinationStream {
  const out = pino.destination({ dest: 1, sync: true });
  let held: string[] = [];
  const handOver = (): void => {
    if (held.length === 0) return;
    const text = held.join('');
    held = [];
    out.write(text);
  };
  process.once('exit', handOver);
  return {
    write(line: string): void {
      // pino writes the level first: {"level":30 is info, 20 debug, 10 trace.
      if (line.charCodeAt(9) < 52 /* '4' */) {
        if (held.push(line) === 1) setImmediate(handOver);
        return;
      }
      held.push(line);
      handOver();
    },
  };
}
