/**
 * The graceful stop: make every answer still to come the last on its connection, keep serving for
 * a delay (a balancer checking /readyz takes the instance out meanwhile), stop accepting, let
 * answers in flight finish within a grace, then cut what is left and wait for handlers whose
 * connection was cut, so the store is closed after their last write.
 *
 * A connection closed under a client that is sending on it loses that request (a balancer answers
 * 502 for a POST: issue 17). So during the delay every answer says Connection: close (the client
 * learns it before it could send again); the listener closes in a pause between new connections
 * (closing it resets those queued in the kernel, requests already sent on them); and idle
 * connections close only after the delay and a moment more, so a request that reached one is
 * read and answered rather than reset.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import type { ConnectionTable } from './connection-caps.js';

/** How long after the grace the stop waits for handlers whose connection was cut. */
const HANDLER_WAIT_MS = 1000;
/** How often, while stopping, connections that turned idle are closed. */
const SWEEP_MS = 50;
/** After the delay, the listener closes in the first pause this long without a new connection... */
const QUIET_MS = 20;
/** ...or after this long without such a pause. */
const QUIET_WAIT_MS = 1000;
/** After the listener closed, how long a connection it accepted last has to deliver its request. */
const SETTLE_MS = 100;

/** The app's handlers still running, also those whose connection was cut. */
export class HandlersInFlight {
  private running = 0;
  private onIdle: (() => void) | undefined;

  get count(): number {
    return this.running;
  }

  /** `fetch`, counted while its answer is pending. */
  wrap<E>(fetch: (request: Request, env: E) => Response | Promise<Response>): (request: Request, env: E) => Response | Promise<Response> {
    return (request, env) => {
      const answer = fetch(request, env);
      if (!(answer instanceof Promise)) return answer;
      this.running += 1;
      return answer.finally(() => {
        this.running -= 1;
        if (this.running === 0) this.onIdle?.();
      });
    };
  }

  /** Resolves once no handler runs, or after `ms`. */
  idle(ms: number): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise<void>((done) => {
      const waited = setTimeout(finish, ms);
      waited.unref();
      this.onIdle = finish;
      function finish() {
        clearTimeout(waited);
        done();
      }
    });
  }
}

/** Sets the server up for a graceful stop; answers the stop, to call with the grace and the delay in ms. */
export function drainOnStop(server: Server, connections: ConnectionTable, handlers: HandlersInFlight): (graceMs: number, delayMs?: number) => Promise<void> {
  let draining = false;
  // Before the app's listener, so the header is set before anything is written.
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    // While stopping, every answer is the connection's last.
    if (draining) res.setHeader('Connection', 'close');
  });

  return async (graceMs, delayMs = 0) => {
    draining = true;
    // Answers not yet begun are the last on their connection too.
    for (const [, { current }] of connections.entries()) if (current && !current.res.headersSent) current.res.setHeader('Connection', 'close');
    const closed = new Promise<void>((done) => server.once('close', () => done()));
    if (delayMs > 0) {
      // Still accepting and answering (each connection's next answer its last) until the balancer has taken the instance out.
      await sleep(delayMs);
      await closeListenerInAPause(server);
      // A connection accepted just before gets its request read (and answered) before idle connections are closed.
      await sleep(SETTLE_MS);
    } else {
      // One turn of the event loop: a request whose bytes reached an idle connection is read (so it is answered) before idle ones close.
      await new Promise((done) => setImmediate(done));
    }
    const deadline = Date.now() + graceMs;
    // Stops accepting (if it still does) and closes the idle connections: Node's close does both.
    server.close();
    // Connections that never sent a byte carry no request: they go now, not at the end of the grace.
    for (const [socket, { busy }] of connections.entries()) if (busy === 0 && socket.bytesRead === 0) socket.destroy();
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    force.unref();
    // A keep-alive socket whose request finishes after close() starts turns idle later; close it then too.
    const sweep = setInterval(() => server.closeIdleConnections(), SWEEP_MS);
    sweep.unref();
    await closed;
    clearTimeout(force);
    clearInterval(sweep);
    // A handler whose connection was cut may still be writing: let it get there before the store closes.
    await handlers.idle(Math.max(0, deadline - Date.now()) + HANDLER_WAIT_MS);
  };
}

/**
 * Closes the listening socket (not the connections) once QUIET_MS passed without a new connection,
 * or after QUIET_WAIT_MS at the latest. Closing it resets the connections still queued in the
 * kernel, which a client (nginx, say, which cannot read /readyz) has already sent its request on;
 * they come in bursts, so the queue is all but surely empty in a pause between them.
 */
async function closeListenerInAPause(server: Server): Promise<void> {
  let lastAccepted = Date.now();
  const accepted = () => (lastAccepted = Date.now());
  server.prependListener('connection', accepted);
  const giveUpAt = Date.now() + QUIET_WAIT_MS;
  while (Date.now() - lastAccepted < QUIET_MS && Date.now() < giveUpAt) await sleep(QUIET_MS / 4);
  server.off('connection', accepted);
  // Only the listener: http's close() would close idle connections too, before their last bytes are read.
  NetServer.prototype.close.call(server);
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
