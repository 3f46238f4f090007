/** A listener in the test itself: GET /sandbox/v1/webhook/stream read event by event, answers POSTed back. */
import { expect } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { parseEvent } from '../../src/listen-command.js';
import { call, createBody } from './http.js';
import { until } from './until.js';

export interface StreamEvent {
  readonly event: string;
  readonly data: any;
}

export interface OpenStream {
  readonly response: Response;
  readonly events: StreamEvent[];
  /** True once the sandbox ended the stream (or it was closed). */
  ended(): boolean;
  /** The first event named `name` not taken before, waited for. */
  next(name: string, ms?: number): Promise<any>;
  close(): Promise<void>;
}

export async function openStream(sandbox: Sandbox, key: string, query = ''): Promise<OpenStream> {
  const response = await sandbox.fetch(new Request(`http://sandbox.test/sandbox/v1/webhook/stream${query}`, { headers: { 'Service-Api-Key': key } }));
  const events: StreamEvent[] = [];
  const taken = new Set<StreamEvent>();
  let ended = false;
  const reader = response.status === 200 ? response.body!.getReader() : undefined;
  if (reader) {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
        if (chunk.done) return void (ended = true);
        buffer += decoder.decode(chunk.value, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const { event, data } = parseEvent(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (event) events.push({ event, data: JSON.parse(data) });
        }
      }
    })();
  }
  return {
    response,
    events,
    ended: () => ended,
    next: async (name, ms = 5_000) => {
      const found = await until(() => events.find((e) => e.event === name && !taken.has(e)), `a ${name} event`, ms);
      taken.add(found);
      return found.data;
    },
    close: async () => {
      await reader?.cancel().catch(() => undefined);
    },
  };
}

/** POSTs the listener's answer to an attempt. */
export function answer(sandbox: Sandbox, key: string, body: unknown): Promise<Response> {
  return sandbox.fetch(
    new Request('http://sandbox.test/sandbox/v1/webhook/stream/answers', {
      method: 'POST',
      headers: { 'Service-Api-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
}

/** A merchant enrolled to listen: `open` connects a stream (kept in `streams`, to close after the test), `create` makes a payment. */
export async function listeningMerchant(sandbox: Sandbox, streams: OpenStream[], name: string) {
  const m = await sandbox.control.enroll({ name });
  const open = async (query = '') => {
    const s = await openStream(sandbox, m.apiKey, query);
    streams.push(s);
    return s;
  };
  const create = async (ref: string) => {
    const created = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { key: m.apiKey, body: createBody({ payee: m.payeeId, merchant_ref_no: ref }) });
    expect(created.status).toBe(200);
    return created.body.payment_id as string;
  };
  const deliveries = () => sandbox.services.webhooks.deliveries(m.payeeId, 50);
  return { m, open, create, deliveries };
}
