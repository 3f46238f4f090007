/** `payreq-sandbox replay --base-url` against a real listening server, through the command line parser. */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { createSandbox } from '../../src/index.js';
import type { RunningServer, Sandbox } from '../../src/index.js';

const scenario = (name: string) => fileURLToPath(new URL(`../../scenarios/${name}`, import.meta.url));

describe('replay --base-url against a listening sandbox', () => {
  let sandbox: Sandbox;
  let server: RunningServer;
  beforeAll(async () => {
    sandbox = await createSandbox({ store: 'memory' });
    server = await sandbox.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await server.close();
    await sandbox.close();
  });

  async function runCli(args: string[]): Promise<{ exitCode: number | undefined; output: string }> {
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const before = process.exitCode;
    try {
      await buildProgram().exitOverride().parseAsync(['node', 'payreq-sandbox', 'replay', ...args]);
      return { exitCode: process.exitCode as number | undefined, output: written.join('') };
    } finally {
      spy.mockRestore();
      process.exitCode = before;
    }
  }

  it('enrolls its own merchant there and replays over HTTP, timeout and dropped connection included', async () => {
    const files = ['happy-path-p-w-a.yaml', 'isolation-other-merchant.yaml', 'timeout-after-commit-recovery.yaml', 'dropped-connection-recovery.yaml'].map(scenario);
    const { exitCode, output } = await runCli(['--base-url', server.url, '--no-color', ...files]);
    expect(output, output).toMatch(new RegExp(`4 scenario files: 4 passed; \\d+ steps in .* against ${server.url}`));
    expect(exitCode).toBe(0);
    // The merchants were enrolled on that server: its store holds them.
    const merchants = await sandbox.services.store.merchantIds();
    expect(merchants.length).toBeGreaterThanOrEqual(2 + 5);
  });

  it('a failure against the server exits 1', async () => {
    const { exitCode, output } = await runCli(['--base-url', `${server.url}/no-such-prefix`, '--no-color', scenario('happy-path-p-w-a.yaml')]);
    expect(exitCode).toBe(1);
    expect(output).toContain("setup: could not enroll the scenario's merchant");
  });
});
