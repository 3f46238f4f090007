/** One HTTP exchange of a replay, with the client's patience: a response, a timeout or a dropped connection. */
import type { Observed } from './assertions.js';

/** How requests reach the sandbox: the global fetch, or an in-process sandbox's fetch. */
export type Transport = (request: Request) => Promise<Response>;

export interface OutgoingRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface Exchange extends Observed {
  readonly request: OutgoingRequest;
  readonly durationMs: number;
  /** Why there was no response, when there was none. */
  readonly error?: string;
}

function causeOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`;
}

export async function exchange(transport: Transport, request: OutgoingRequest, timeoutMs: number): Promise<Exchange> {
  const controller = new AbortController();
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new DOMException(`no response within ${timeoutMs} ms`, 'TimeoutError'));
      resolve('timeout');
    }, timeoutMs);
  });
  const answered = (async () => {
    const response = await transport(
      new Request(request.url, {
        method: request.method,
        headers: request.headers,
        signal: controller.signal,
        ...(request.body !== undefined ? { body: request.body } : {}),
      }),
    );
    return { response, text: await response.text() };
  })();
  // The loser of the race below must not become an unhandled rejection.
  answered.catch(() => {});
  try {
    const result = await Promise.race([answered, timedOut]);
    if (result === 'timeout') return { request, outcome: 'timeout', durationMs: elapsed(), error: `no response within ${timeoutMs} ms` };
    const { response, text } = result;
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { request, outcome: 'response', status: response.status, headers: response.headers, text, json, durationMs: elapsed() };
  } catch (err) {
    if (controller.signal.aborted) return { request, outcome: 'timeout', durationMs: elapsed(), error: `no response within ${timeoutMs} ms` };
    return { request, outcome: 'dropped', durationMs: elapsed(), error: `no response: ${causeOf(err)}` };
  } finally {
    clearTimeout(timer);
  }
}
