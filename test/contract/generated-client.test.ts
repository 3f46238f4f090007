/**
 * A TypeScript client generated from /openapi.json, as an integrator makes one: types by
 * openapi-typescript, calls by openapi-fetch. The types are generated afresh from the running
 * sandbox's document; client/flow.ts must compile against them (tsc, strict), and what tsc wrote
 * runs create -> pay -> status against a listening sandbox.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import openapiTS from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer, Sandbox } from '../../src/index.js';
import { DEMO_KEY, DEMO_PAYEE, memorySandbox, uniqueRef } from '../helpers.js';

/** client/flow.ts as compiled in the temp folder (not imported statically: it needs the generated types). */
interface FlowModule {
  createPayRead(baseUrl: string, key: string, payee: string, merchantRefNo: string): Promise<{ paymentId: string; created: string; status: string; amount: number; payer: string | undefined }>;
}

const root = fileURLToPath(new URL('../..', import.meta.url));
const flowSource = fileURLToPath(new URL('./client/flow.ts', import.meta.url));
const tsc = join(root, 'node_modules/typescript/bin/tsc');

let sandbox: Sandbox;
let server: RunningServer;
let workDir: string;
beforeAll(async () => {
  sandbox = await memorySandbox();
  server = await sandbox.listen(0, '127.0.0.1');
  // Inside the project, so the generated client resolves openapi-fetch from its node_modules.
  await mkdir(join(root, 'node_modules/.cache'), { recursive: true });
  workDir = await mkdtemp(join(root, 'node_modules/.cache/generated-client-'));
});
afterAll(async () => {
  await sandbox?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** Compiles flow source text against the generated types in `dir` (flow.js beside it): tsc's exit code and its output. */
async function typeCheck(dir: string, source: string): Promise<{ ok: boolean; output: string }> {
  await writeFile(join(dir, 'flow.ts'), source);
  // Node stops looking for a package scope at node_modules: the compiled flow.js is ESM by its own.
  await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  const options = { target: 'es2023', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noUncheckedIndexedAccess: true, verbatimModuleSyntax: true, noEmitOnError: true, types: [] };
  const config = { compilerOptions: options, files: ['flow.ts'] };
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(config));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { cwd: dir });
    return { ok: true, output: stdout };
  } catch (err) {
    return { ok: false, output: String((err as { stdout?: string }).stdout ?? err) };
  }
}

describe('a client generated with openapi-typescript and openapi-fetch', () => {
  it('compiles (strict tsc) against types generated from the served document', async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as Record<string, unknown>;
    const types = await openapiTS(document as never);
    await writeFile(join(workDir, 'schema.d.ts'), types);
    // No method that can only fail: the status path has GET (and HEAD) only.
    const statusPath = /"\/openapi\/v1\/payments\/payment\/\{payment_id\}": \{([^}]*)\};/.exec(types)?.[1] ?? '';
    expect(statusPath.match(/^\s+(\w+): operations/gm)?.map((m) => m.trim().split(':')[0])).toEqual(['get', 'head']);
    const source = await readFile(flowSource, 'utf8');
    const checked = await typeCheck(workDir, source);
    expect(checked.output).toBe('');
    expect(checked.ok).toBe(true);
    // The check has teeth: a string amount and a misspelt field are refused by the generated types.
    const wrongDir = await mkdtemp(join(workDir, 'wrong-'));
    await writeFile(join(wrongDir, 'schema.d.ts'), types);
    const wrong = await typeCheck(wrongDir, source.replace('amount: 10.5', "amount: '10.50'").replace('after.data.payment_status', 'after.data.payment_state'));
    expect(wrong.ok).toBe(false);
    expect(wrong.output).toMatch(/flow\.ts\(\d+,\d+\): error TS2322/);
    expect(wrong.output).toMatch(/payment_state/);
  }, 60_000);

  it('runs create -> pay -> status against a listening sandbox', async () => {
    const { createPayRead } = (await import(pathToFileURL(join(workDir, 'flow.js')).href)) as FlowModule;
    const flow = await createPayRead(server.url, DEMO_KEY, DEMO_PAYEE, uniqueRef('client'));
    expect(flow.paymentId).toMatch(/^pay_/);
    expect(flow.created).toBe('P');
    expect(flow.status).toBe('A');
    expect(flow.amount).toBe(10.5);
    expect(flow.payer).toEqual(expect.any(String));
    // An error answer comes back typed as the envelope, not thrown.
    await expect(createPayRead(server.url, 'sk_sandbox_unknown', DEMO_PAYEE, uniqueRef('client'))).rejects.toThrow(/create answered 401: .*Service-Api-Key/);
  });
});

