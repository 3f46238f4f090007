/** Ports for tests that start servers of their own. */
import { createServer } from 'node:net';

/** Below Linux's ephemeral range (32768-60999): no `listen(0)` and no outgoing connection of another test is given it meanwhile. */
const FIRST = 20_000;
const LAST = 32_767;

/** A port nobody listens on now (taken and given back at once), chosen where other tests' servers do not land by chance. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = FIRST + Math.floor(Math.random() * (LAST - FIRST + 1));
    const server = createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (free) {
      await new Promise((resolve) => server.close(resolve));
      return port;
    }
  }
}
