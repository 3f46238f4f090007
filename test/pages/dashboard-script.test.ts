/** The dashboard's compiled script: a plain script the page inlines as built, and a clear answer when it is not built. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtScript, readBuiltScript } from '../../src/http/pages/browser-scripts.js';
import { dashboardRoutes } from '../../src/http/pages/dashboard-page.js';
import type { Sandbox } from '../../src/index.js';
import { memorySandbox } from '../helpers.js';

let sandbox: Sandbox;
let scratch: string;

beforeAll(async () => {
  sandbox = await memorySandbox();
  scratch = mkdtempSync(join(tmpdir(), 'payreq-scripts-'));
});
afterAll(async () => {
  await sandbox.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the compiled dashboard script', () => {
  it('is built (npm run build) as one plain script: no import or export survives', () => {
    const js = builtScript('dashboard');
    expect(js, 'dist/browser/dashboard.js is missing: run npm run build').not.toBeNull();
    // A classic script: vm.Script throws a SyntaxError on an import or export declaration.
    expect(() => new Script(js ?? '', { filename: 'dashboard.js' })).not.toThrow();
  });

  it('is what GET /sandbox inlines, under the response nonce', async () => {
    const res = await sandbox.fetch(new Request('http://sandbox.test/sandbox'));
    const nonce = /script-src 'nonce-([^']+)'/.exec(res.headers.get('content-security-policy') ?? '')?.[1];
    expect(await res.text()).toContain(`<script nonce="${nonce}">${builtScript('dashboard')}</script>`);
  });

  it('answers a 500 envelope that says to build, instead of a page without its script', async () => {
    const res = await dashboardRoutes(() => null).request('/');
    expect(res.status).toBe(500);
    const body = (await res.json()) as { code: number; description: string };
    expect(body.code).toBe(500);
    expect(body.description).toContain('run npm run build');
  });
});

describe('readBuiltScript', () => {
  it('is null for a script not built yet', () => {
    expect(readBuiltScript(pathToFileURL(join(scratch, 'absent.js')))).toBeNull();
  });

  it('refuses a script that would close its <script> element early', () => {
    const file = join(scratch, 'closing.js');
    writeFileSync(file, 'const s = "</SCRIPT><img src=x>";');
    expect(() => readBuiltScript(pathToFileURL(file))).toThrow(/<\/script/);
  });
});
