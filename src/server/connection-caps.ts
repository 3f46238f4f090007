/**
 * Connection caps, counted by us rather than by Node's `server.maxConnections` (which refuses
 * every newcomer once full). A client is an IPv4 address or an IPv6 /64 (clientNetwork). At a
 * cap, an idle connection makes room first (one of the client holding the most); when none is
 * idle, a connection still uploading its request of a client over its share (the cap divided
 * among the clients holding connections) makes room for a client under it. So a few addresses,
 * idle or sending slowly, cannot lock everyone else out.
 */
import type { Socket } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { clientNetwork } from '../http/client-address.js';
import type { ServerLimits } from './limits.js';

export interface Connection {
  /** The client (clientNetwork of the socket's address) the connection counts toward. */
  readonly client: string;
  /** Requests dispatched on it whose response has not closed. */
  busy: number;
  /** The last request dispatched on it, and how far its body had come then. */
  current?: { readonly req: IncomingMessage; readonly res: ServerResponse; readonly at: number; readonly bytesRead: number };
}

export type ConnectionLimits = Pick<ServerLimits, 'maxConnections' | 'maxConnectionsPerClient'>;

/** The open connections of one server, by socket and by client. */
export class ConnectionTable {
  private readonly connections = new Map<Socket, Connection>();
  /** Per client, its sockets oldest first. */
  private readonly byClient = new Map<string, Set<Socket>>();

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
    const client = clientNetwork(socket.remoteAddress ?? '');
    const { maxConnections, maxConnectionsPerClient } = this.limits;
    const mine = this.byClient.get(client);
    let spare: Socket | undefined | null = null;
    if (maxConnectionsPerClient > 0 && mine && mine.size >= maxConnectionsPerClient) spare = this.idleOf(mine);
    else if (maxConnections > 0 && this.connections.size >= maxConnections) spare = this.idleOfBusiestClient() ?? this.uploadOverShare(client);
    if (spare === undefined) {
      socket.destroy();
      return false;
    }
    if (spare) {
      this.forget(spare);
      spare.destroy();
    }
    let sockets = this.byClient.get(client);
    if (!sockets) this.byClient.set(client, (sockets = new Set()));
    sockets.add(socket);
    this.connections.set(socket, { client, busy: 0 });
    socket.once('close', () => this.forget(socket));
    return true;
  }

  /** A request dispatched on its connection: busy until its response closes. */
  dispatched(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket as Socket;
    const connection = this.connections.get(socket);
    if (!connection) return;
    connection.busy += 1;
    connection.current = { req, res, at: Date.now(), bytesRead: socket.bytesRead ?? 0 };
    res.once('close', () => (connection.busy -= 1));
  }

  /** The oldest connection of these with no request in progress (idle, or still sending its headers). */
  private idleOf(sockets: Iterable<Socket>): Socket | undefined {
    for (const socket of sockets) if (this.connections.get(socket)!.busy === 0) return socket;
    return undefined;
  }

  /** An idle connection of the client holding the most connections that has one. */
  private idleOfBusiestClient(): Socket | undefined {
    for (const sockets of this.clientsBySize()) {
      const idle = this.idleOf(sockets);
      if (idle) return idle;
    }
    return undefined;
  }

  /**
   * For a newcomer of `client` under its share of the cap: the oldest connection still uploading
   * its request (its body unfinished, nothing answered) of a client holding more than its share.
   */
  private uploadOverShare(client: string): Socket | undefined {
    const clients = this.byClient.size + (this.byClient.has(client) ? 0 : 1);
    const share = Math.floor(this.limits.maxConnections / clients);
    if ((this.byClient.get(client)?.size ?? 0) >= share) return undefined;
    for (const sockets of this.clientsBySize()) {
      if (sockets.size <= share) return undefined;
      for (const socket of sockets) {
        const { current } = this.connections.get(socket)!;
        if (current && !current.req.complete && !current.res.headersSent) return socket;
      }
    }
    return undefined;
  }

  private clientsBySize(): Set<Socket>[] {
    return [...this.byClient.values()].sort((a, b) => b.size - a.size);
  }

  private forget(socket: Socket): void {
    const connection = this.connections.get(socket);
    if (!connection) return;
    this.connections.delete(socket);
    const mine = this.byClient.get(connection.client);
    mine?.delete(socket);
    if (mine?.size === 0) this.byClient.delete(connection.client);
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
