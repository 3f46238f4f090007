/** Which connection makes room at a cap (src/server/connection-caps.ts), on stand-in sockets. */
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ConnectionTable } from '../../src/server/connection-caps.js';

class FakeSocket extends EventEmitter {
  destroyed = false;
  constructor(readonly remoteAddress: string) {
    super();
  }
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

function table(maxConnections: number, maxConnectionsPerClient = 0) {
  const connections = new ConnectionTable({ maxConnections, maxConnectionsPerClient });
  const open = (address: string) => {
    const socket = new FakeSocket(address);
    connections.admit(socket as unknown as Socket);
    return socket;
  };
  /** A request in progress on `socket`; answering it (the response closes) makes the connection idle again. */
  const busy = (socket: FakeSocket) => {
    const res = new EventEmitter();
    connections.dispatched({ socket } as unknown as IncomingMessage, res as unknown as ServerResponse);
    return () => res.emit('close');
  };
  return { connections, open, busy };
}

describe('ConnectionTable', () => {
  it('under the cap, every connection is taken in', () => {
    const { connections, open } = table(3);
    const sockets = ['a', 'b', 'a'].map(open);
    expect(connections.size).toBe(3);
    expect(sockets.some((s) => s.destroyed)).toBe(false);
  });

  it('at the cap, the oldest idle connection of the address holding the most makes room', () => {
    const { connections, open } = table(5);
    const a = ['a', 'a', 'a'].map(open);
    const b = ['b', 'b'].map(open);
    const newcomer = open('c');
    expect(a.map((s) => s.destroyed)).toEqual([true, false, false]);
    expect(b.some((s) => s.destroyed)).toBe(false);
    expect(newcomer.destroyed).toBe(false);
    expect(connections.size).toBe(5);
  });

  it('busy connections are skipped: the idle one of the busiest address that has one goes, else the next address', () => {
    const { open, busy } = table(4);
    const a = ['a', 'a'].map(open);
    const b = ['b', 'b'].map(open);
    busy(a[0]!);
    open('c');
    expect(a.map((s) => s.destroyed)).toEqual([false, true]);
    busy(b[0]!);
    busy(b[1]!);
    const d = open('d');
    // a (1, busy), b (2, both busy), c (1, idle): c's makes room.
    expect(b.some((s) => s.destroyed)).toBe(false);
    expect(d.destroyed).toBe(false);
  });

  it('when every connection is busy, the newcomer is refused; once one is answered, it makes room', () => {
    const { connections, open, busy } = table(2);
    const answered = ['a', 'b'].map(open).map(busy);
    const refused = open('c');
    expect(refused.destroyed).toBe(true);
    expect(connections.size).toBe(2);
    answered[0]!();
    expect(open('c').destroyed).toBe(false);
  });

  it('the per-client cap comes first: the client at its cap gives up its own oldest idle connection, others untouched', () => {
    const { open, busy } = table(10, 2);
    const other = open('b');
    const mine = ['a', 'a'].map(open);
    const third = open('a');
    expect(mine.map((s) => s.destroyed)).toEqual([true, false]);
    expect(other.destroyed).toBe(false);
    busy(mine[1]!);
    busy(third);
    expect(open('a').destroyed).toBe(true);
  });
});
