/** A create whose answer a timeout fault holds, and the journal read while it is held (SPEC 19). */
import { request as httpRequest } from 'node:http';
import { expect } from 'vitest';
import { until } from './until.js';

export type Fetch = (request: Request) => Promise<Response>;

/**
 * A fetch over node:http for a create the server holds: its abort destroys the socket at once.
 * Node's fetch (undici) was seen twice in CI to leave an aborted held request unsettled for 5 s and more.
 */
export const overHttp: Fetch = async (request) => {
  const body = Buffer.from(await request.arrayBuffer());
  return new Promise((resolve, reject) => {
    const req = httpRequest(request.url, { method: request.method, headers: Object.fromEntries(request.headers), signal: request.signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk)).on('error', reject);
      res.on('end', () => resolve(new Response(chunks.length > 0 ? Buffer.concat(chunks) : null, { status: res.statusCode ?? 0 })));
    });
    req.on('error', reject);
    req.end(body);
  });
};

export interface HeldCreate {
  /** The create's Request-Id, which names its journal entry. */
  readonly requestId: string;
  /** True once the client has an answer or has given up. */
  readonly settled: () => boolean;
  /** The client gives up; resolves once its fetch has settled. */
  giveUp(): Promise<void>;
  /** What the client got: a status, or 'lost'. */
  readonly outcome: Promise<number | 'lost'>;
}

let held = 0;

/** Sends a create through `fetch` (in-process or over a socket at `base`) that a fault or the amount holds. */
export function holdCreate(fetch: Fetch, base: string, key: string, body: Record<string, unknown>, headers: Record<string, string> = {}): HeldCreate {
  const requestId = `held-${process.pid}-${++held}`;
  const controller = new AbortController();
  let settled = false;
  const outcome = fetch(
    new Request(`${base}/openapi/v1/payments/payment`, {
      method: 'POST',
      headers: { 'Service-Api-Key': key, 'Content-Type': 'application/json', 'Request-Id': requestId, ...headers },
      body: JSON.stringify(body),
      signal: controller.signal,
    }),
  ).then(
    (res) => {
      settled = true;
      return res.status;
    },
    () => {
      settled = true;
      return 'lost' as const;
    },
  );
  return {
    requestId,
    settled: () => settled,
    outcome,
    async giveUp() {
      controller.abort();
      // Bounded, so a fetch that never settles fails here by name instead of timing the test out.
      await Promise.race([outcome, new Promise((_, reject) => setTimeout(() => reject(new Error(`the aborted create ${requestId} did not settle within 5 s`)), 5_000).unref())]);
    },
  };
}

export interface JournalEntryView {
  readonly request_id: string | null;
  readonly status: number | string;
  readonly code: number | null;
  readonly fault: string | null;
  readonly latency_ms: number;
  readonly response_body: Record<string, unknown> | null;
  readonly request_body: Record<string, unknown> | null;
}

/** The journal entries of one request, read through `fetch` (any instance). */
export async function entriesOf(fetch: Fetch, base: string, key: string, requestId: string): Promise<JournalEntryView[]> {
  // Bounded like every step here, so a read that hangs names itself instead of timing the test out.
  const res = await fetch(new Request(`${base}/sandbox/v1/requests?method=POST&limit=500`, { headers: { 'Service-Api-Key': key }, signal: AbortSignal.timeout(5_000) }));
  expect(res.status).toBe(200);
  const { requests } = (await res.json()) as { requests: JournalEntryView[] };
  return requests.filter((e) => e.request_id === requestId);
}

/** Waits (bounded) for the held entry of `create` to be readable through `fetch`, while the create is still held. */
export async function heldEntry(fetch: Fetch, base: string, key: string, create: HeldCreate): Promise<JournalEntryView> {
  const entry = await until(async () => (await entriesOf(fetch, base, key, create.requestId))[0], `the journal entry of ${create.requestId}`, 10_000, 20);
  expect(create.settled(), 'the answer is still held when its entry is read').toBe(false);
  return entry;
}
