/**
 * Fault injection: the interrupted request that the status query exists for.
 * `error` answers before anything is committed; `error-after-commit`, `timeout` and `drop`
 * let the change commit and then spoil the answer.
 */
import type { Socket } from 'node:net';
import type { Context } from 'hono';
import { ApiError, Code } from '../domain/codes.js';
import type { ResponseCode } from '../domain/codes.js';
import type { AppEnv } from './context.js';
import { send } from './envelope.js';

export type Fault =
  | { readonly kind: 'latency'; readonly ms: number }
  | { readonly kind: 'error'; readonly status: ResponseCode }
  | { readonly kind: 'error-after-commit'; readonly status: ResponseCode }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'drop' };

export const MAX_LATENCY_MS = 60_000;
const FAULT_HELP = 'use latency=<ms>, error=<status>, error-after-commit=<status>, timeout or drop (several may be joined with ",")';

/** Parses a Sandbox-Fault header such as `latency=200, error-after-commit=503`. */
export function parseFaults(text: string): Fault[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => parseFault(part));
}

export function parseFault(part: string): Fault {
  const [name = '', value] = part.split('=', 2).map((s) => s.trim());
  const bad = (why: string) => ApiError.invalid(`Sandbox-Fault ${JSON.stringify(part.slice(0, 64))} is not understood: ${why}; ${FAULT_HELP}.`);
  switch (name) {
    case 'latency': {
      const ms = Number(value);
      if (!Number.isInteger(ms) || ms < 0 || ms > MAX_LATENCY_MS) throw bad(`latency must be a whole number of milliseconds from 0 to ${MAX_LATENCY_MS}`);
      return { kind: 'latency', ms };
    }
    case 'error':
    case 'error-after-commit': {
      const status = Number(value);
      if (!Number.isInteger(status) || status < 400 || status > 599) throw bad(`${name} needs an HTTP error status from 400 to 599`);
      return { kind: name, status: status as ResponseCode };
    }
    case 'timeout':
    case 'drop':
      if (value !== undefined) throw bad(`${name} takes no value`);
      return { kind: name };
    default:
      throw bad('unknown fault');
  }
}

/** Thrown in-process (no socket) for `drop`; the library turns it into a rejected fetch. */
export class DroppedConnection extends Error {
  constructor() {
    super('connection dropped by a sandbox fault');
  }
}

export const DROPPED_HEADER = 'x-sandbox-dropped';

function socketOf(c: Context<AppEnv>): Socket | undefined {
  const env = c.env as { incoming?: { socket?: Socket } } | undefined;
  return env?.incoming?.socket;
}

export function faultDescription(fault: Fault): string {
  switch (fault.kind) {
    case 'latency':
      return `latency=${fault.ms}`;
    case 'error':
    case 'error-after-commit':
      return `${fault.kind}=${fault.status}`;
    default:
      return fault.kind;
  }
}

export function injectedError(c: Context<AppEnv>, status: ResponseCode, committed: boolean): Response {
  const what = committed
    ? 'the change WAS committed; query the payment status to learn the outcome'
    : 'nothing was committed; the request can be retried';
  return send(c, { code: status, description: `Injected fault: this request answers ${status} by a sandbox fault (${what}).` });
}

/** After the change is committed: hold the answer, or close the connection without one. */
export async function applyCommittedFault(c: Context<AppEnv>, fault: 'timeout' | 'drop', _response: Response): Promise<Response> {
  const socket = socketOf(c);
  if (fault === 'drop') {
    if (!socket) throw new DroppedConnection();
    socket.destroy();
    return new Response(null, { status: 204 });
  }
  const holdMs = c.get('services').config.timeoutHoldMs;
  await new Promise<void>((resolve) => {
    // Only a timer is held: it ends when the client gives up or the cap passes.
    const timer = setTimeout(done, holdMs);
    socket?.once('close', done);
    function done() {
      clearTimeout(timer);
      socket?.off('close', done);
      resolve();
    }
  });
  return send(c, {
    code: Code.TIMEOUT,
    description: `Injected fault: the response was held for up to ${Math.round(holdMs / 1000)} s by a timeout fault; the change WAS committed, so query the payment status.`,
  });
}
