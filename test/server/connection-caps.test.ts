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
  /**
   * A request in progress on `socket` (its body all read, or with `uploading` still arriving);
   * answering it (the response closes) makes the connection idle again.
   */
  const busy = (socket: FakeSocket, uploading = false) => {
    const res = Object.assign(new EventEmitter(), { headersSent: false });
    connections.dispatched({ socket, complete: !uploading } as unknown as IncomingMessage, res as unknown as ServerResponse);
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
    const answered = ['a', 'b'].map(open).map((s) => busy(s));
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

  it('an IPv6 /64 is one client: its addresses share the per-client cap; an IPv4-mapped address counts as the IPv4', () => {
    const { open } = table(100, 2);
    const net = ['2001:db8:1::1', '2001:db8:1:0:ffff::2'].map(open);
    const third = open('2001:db8:1::3');
    expect(net.map((s) => s.destroyed)).toEqual([true, false]);
    expect(third.destroyed).toBe(false);
    // Another /64 and an IPv4 client have their own.
    expect(['2001:db8:1:1::1', '2001:db8:1:1::2'].map(open).some((s) => s.destroyed)).toBe(false);
    const v4 = ['192.0.2.1', '::ffff:192.0.2.1'].map(open);
    open('192.0.2.1');
    expect(v4.map((s) => s.destroyed)).toEqual([true, false]);
  });

  it('when no connection is idle, an upload of a client over its share makes room for a client under it; never one already being handled', () => {
    const { open, busy } = table(8);
    // Two clients hold the cap with uploads in progress, 6 and 2.
    const a = Array.from({ length: 6 }, () => open('a'));
    const b = ['b', 'b'].map(open);
    for (const s of [...a, ...b]) busy(s, true);
    // A newcomer: 3 clients, share 8 ÷ 3 = 2; a holds 6, over it: its oldest upload goes.
    const c = open('c');
    expect(c.destroyed).toBe(false);
    expect(a.map((s) => s.destroyed)).toEqual([true, false, false, false, false, false]);
    expect(b.some((s) => s.destroyed)).toBe(false);
    // A client at its share gets no more that way: c holds 1... then 2 = share (8 ÷ 3).
    busy(c, true);
    const c2 = open('c');
    busy(c2, true);
    expect(a.filter((s) => s.destroyed)).toHaveLength(2);
    expect(open('c').destroyed).toBe(true);
    expect(a.filter((s) => s.destroyed)).toHaveLength(2);
  });

  it('requests being handled (their body read) are never cut for a newcomer', () => {
    const { open, busy } = table(4);
    const a = Array.from({ length: 4 }, () => open('a'));
    for (const s of a) busy(s);
    expect(open('b').destroyed).toBe(true);
    expect(a.some((s) => s.destroyed)).toBe(false);
  });
});
