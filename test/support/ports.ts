/** Ports for tests that start servers of their own. */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A port nobody listens on now (taken and given back at once). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
