/**
 * Connection caps, counted by us rather than by Node's `server.maxConnections` (which refuses
 * every newcomer once full): at a cap, a connection with no request in progress of the client
 * holding the most connections makes room, so a few addresses cannot lock everyone else out.
 */
import type { Socket } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { ServerLimits } from './limits.js';

export interface Connection {
  readonly address: string;
  /** Requests dispatched on it whose response has not closed. */
  busy: number;
  /** The last request dispatched on it. */
  current?: { readonly req: IncomingMessage; readonly res: ServerResponse };
}

export type ConnectionLimits = Pick<ServerLimits, 'maxConnections' | 'maxConnectionsPerClient'>;

/** The open connections of one server, by socket and by client address. */
export class ConnectionTable {
  private readonly connections = new Map<Socket, Connection>();
  /** Per address, its sockets oldest first. */
  private readonly byAddress = new Map<string, Set<Socket>>();

  constructor(private readonly limits: ConnectionLimits) {}

  get size(): number {
    return this.connections.size;
  }

  of(socket: Socket): Connection | undefined {
    return this.connections.get(socket);
  }

  entries(): IterableIterator<[Socket, Connection]> {
    return this.connections.entries();
  }

  /**
   * Takes a new connection in, closing a spare one first when a cap is reached; answers false
   * (and closes the newcomer) when no connection can make room.
   */
  admit(socket: Socket): boolean {
    const address = socket.remoteAddress ?? '';
    const { maxConnections, maxConnectionsPerClient } = this.limits;
    const mine = this.byAddress.get(address);
    let spare: Socket | undefined | null = null;
    if (maxConnectionsPerClient > 0 && mine && mine.size >= maxConnectionsPerClient) spare = this.idleOf(mine);
    else if (maxConnections > 0 && this.connections.size >= maxConnections) spare = this.idleOfBusiestClient();
    if (spare === undefined) {
      socket.destroy();
      return false;
    }
    if (spare) {
      this.forget(spare);
      spare.destroy();
    }
    let sockets = this.byAddress.get(address);
    if (!sockets) this.byAddress.set(address, (sockets = new Set()));
    sockets.add(socket);
    this.connections.set(socket, { address, busy: 0 });
    socket.once('close', () => this.forget(socket));
    return true;
  }

  /** A request dispatched on its connection: busy until its response closes. */
  dispatched(req: IncomingMessage, res: ServerResponse): void {
    const connection = this.connections.get(req.socket as Socket);
    if (!connection) return;
    connection.busy += 1;
    connection.current = { req, res };
    res.once('close', () => (connection.busy -= 1));
  }

  /** The oldest connection of these with no request in progress (idle, or still sending its headers). */
  private idleOf(sockets: Iterable<Socket>): Socket | undefined {
    for (const socket of sockets) if (this.connections.get(socket)!.busy === 0) return socket;
    return undefined;
  }

  /** An idle connection of the address holding the most connections that has one. */
  private idleOfBusiestClient(): Socket | undefined {
    const addresses = [...this.byAddress.values()].sort((a, b) => b.size - a.size);
    for (const sockets of addresses) {
      const idle = this.idleOf(sockets);
      if (idle) return idle;
    }
    return undefined;
  }

  private forget(socket: Socket): void {
    const connection = this.connections.get(socket);
    if (!connection) return;
    this.connections.delete(socket);
    const mine = this.byAddress.get(connection.address);
    mine?.delete(socket);
    if (mine?.size === 0) this.byAddress.delete(connection.address);
  }
}

/** Counts the server's connections and requests against the caps; Node's own cap stays off. */
export function capConnections(server: Server, limits: ConnectionLimits): ConnectionTable {
  const table = new ConnectionTable(limits);
  server.on('connection', (socket: Socket) => table.admit(socket));
  // Before the app's listener, so a request is counted before anything is answered.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => table.dispatched(req, res));
  return table;
}
