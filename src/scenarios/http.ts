/** One HTTP exchange of a replay, with the client's patience: a response, a timeout or a dropped connection. */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Observed } from './assertions.js';

/** How requests reach the sandbox: over HTTP, or an in-process sandbox's fetch. */
export type Transport = (request: Request) => Promise<Response>;

/**
 * Requests over node:http. Unlike the global fetch, a client that gives up (the Request's
 * signal aborts) closes its connection, as an HTTP client with a timeout does; the sandbox
 * sees the client go and ends a held `timeout` fault.
 */
export function httpTransport(): { transport: Transport; close: () => void } {
  const agents = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };
  const transport: Transport = async (request) => {
    const url = new URL(request.url);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const headers: Record<string, string> = Object.fromEntries(request.headers);
    if (body) headers['content-length'] = String(body.byteLength);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Response>((resolve, reject) => {
      const outgoing = send(url, { method: request.method, headers, signal: request.signal, agent: agents[url.protocol as 'http:' | 'https:'] }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => resolve(toResponse(res, Buffer.concat(chunks))));
      });
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  };
  return {
    transport,
    close: () => {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

function toResponse(res: IncomingMessage, body: Buffer): Response {
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
  const status = res.statusCode ?? 0;
  // The Response constructor takes 200-599 only, and no body with 204, 205 and 304.
  const empty = status === 204 || status === 205 || status === 304;
  return new Response(empty ? null : new Uint8Array(body), { status: status >= 200 && status <= 599 ? status : 599, headers });
}

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
