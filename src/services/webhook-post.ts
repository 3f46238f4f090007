/**
 * One webhook POST over node:http(s). With a guard (SANDBOX_WEBHOOK_PRIVATE=deny) the host's name
 * is resolved once, every address it resolves to is checked, and the connection goes to a
 * checked address: resolving again to connect (as fetch would) let a name answer a public
 * address to the check and a private one to the connection (DNS rebinding).
 */
import { lookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { SandboxError } from '../domain/errors.js';

export type Resolver = (host: string) => Promise<readonly LookupAddress[]>;

export const systemResolver: Resolver = (host) => lookup(host, { all: true });

export interface TargetGuard {
  /** True for an address the sandbox must not connect to. */
  readonly refuses: (address: string) => boolean;
  readonly resolve: Resolver;
}

export interface WebhookPost {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
}

/**
 * With a guard, a URL whose host is an address written out is refused when it is set (a 400
 * naming why), not at its first delivery; a name is checked when it is resolved, at delivery.
 */
export function refuseWrittenOutTarget(url: string, refuses: (address: string) => boolean): void {
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) === 0 || !refuses(host)) return;
  const description = `url ${JSON.stringify(url.length > 120 ? `${url.slice(0, 120)}…` : url)} points at ${host}, a loopback, private, special-purpose (documentation, benchmarking, shared, reserved...) or this sandbox's own address: this sandbox delivers webhooks to public addresses only (SANDBOX_WEBHOOK_PRIVATE=deny). Give a URL whose host is reachable on the internet.`;
  throw SandboxError.invalid(description, [{ field: 'url', message: `${host} is not a public address` }]);
}

function refusal(host: string, address: string): Error {
  return new Error(`refused: ${host} is ${address}, a private address; this sandbox delivers webhooks to public addresses only (SANDBOX_WEBHOOK_PRIVATE=deny)`);
}

/** A `lookup` for the socket: resolves once, refuses the name if any address is private, hands back the checked ones. */
function guardedLookup(guard: TargetGuard): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    guard.resolve(hostname).then(
      (resolved) => {
        const addresses = resolved.filter((a) => !options.family || a.family === options.family);
        const blocked = resolved.find((a) => guard.refuses(a.address));
        if (blocked) return callback(refusal(hostname, blocked.address), '', 0);
        const [first] = addresses;
        if (!first) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        if (options.all) return callback(null, addresses.map((a) => ({ address: a.address, family: a.family })));
        callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}

/** What went wrong, in a line: autoSelectFamily's AggregateError carries no message of its own. */
function describeFailure(err: unknown, timeoutMs: number): Error {
  if (!(err instanceof Error)) return new Error(String(err));
  if (err.name === 'AbortError' || err.name === 'TimeoutError') return new Error(`no answer within ${timeoutMs / 1000} s`);
  if (err instanceof AggregateError && !err.message) return describeFailure(err.errors[0], timeoutMs);
  return err;
}

/** POSTs `post.body` and answers the receiver's status; no redirect is followed, the answer's body is not read. */
export async function postWebhook(post: WebhookPost, guard?: TargetGuard): Promise<number> {
  const target = new URL(post.url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host) !== 0;
  // An IP literal is connected to without a lookup: it is checked here instead.
  if (guard && literal && guard.refuses(host)) throw refusal(host, host);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  try {
    return await new Promise<number>((resolve, reject) => {
      const req = send(
        target,
        {
          method: 'POST',
          headers: { ...post.headers, 'Content-Length': String(Buffer.byteLength(post.body)) },
          // A connection of its own per attempt, so each attempt is resolved and checked afresh.
          agent: false,
          signal: AbortSignal.timeout(post.timeoutMs),
          ...(guard && !literal ? { lookup: guardedLookup(guard) } : {}),
          ...(target.protocol === 'https:' && !literal ? { servername: host } : {}),
        },
        (res) => {
          resolve(res.statusCode ?? 0);
          res.destroy();
        },
      );
      req.on('error', reject);
      req.end(post.body);
    });
  } catch (err) {
    throw describeFailure(err, post.timeoutMs);
  }
}
