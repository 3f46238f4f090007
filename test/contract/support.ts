/** A listening memory sandbox behind a validating proxy fed with the sandbox's own /openapi.json. */
import { afterAll, beforeAll } from 'vitest';
import type { Document } from 'openapi-backend';
import type { RunningServer, Sandbox } from '../../src/index.js';
import { memorySandbox } from '../helpers.js';
import { startValidatingProxy } from '../support/validating-proxy.js';
import type { ValidatingProxy } from '../support/validating-proxy.js';

export interface Proxied {
  readonly sandbox: Sandbox;
  readonly server: RunningServer;
  readonly proxy: ValidatingProxy;
  readonly document: Document;
}

export function proxiedSandbox(options: Parameters<typeof memorySandbox>[0] = {}): Proxied {
  const live = {} as { sandbox: Sandbox; server: RunningServer; proxy: ValidatingProxy; document: Document };
  beforeAll(async () => {
    live.sandbox = await memorySandbox(options);
    live.server = await live.sandbox.listen(0, '127.0.0.1');
    live.document = (await (await fetch(`${live.server.url}/openapi.json`)).json()) as Document;
    live.proxy = await startValidatingProxy(live.document, live.server.url);
  });
  afterAll(async () => {
    await live.proxy?.close();
    await live.sandbox?.close();
  });
  return live;
}
