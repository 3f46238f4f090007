/** An in-process sandbox is for the tests of the process that starts it: unless told otherwise, it is reachable from this machine only. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { memorySandbox } from '../helpers.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await memorySandbox();
});
afterAll(() => sandbox.close());

describe('sandbox.listen()', () => {
  it('binds the loopback address when no hostname is given, and answers there', async () => {
    const server = await sandbox.listen();
    expect(server.address).toBe('127.0.0.1');
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('binds the hostname it is given', async () => {
    const server = await sandbox.listen(0, '0.0.0.0');
    expect(server.address).toBe('0.0.0.0');
    expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200);
  });
});
