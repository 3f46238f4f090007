/** The dashboard's compiled browser modules: served by name from what the build made, every import resolvable, a clear answer when not built. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtModules, readBuiltModules } from '../../src/http/pages/browser-scripts.js';
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

const get = (path: string) => sandbox.fetch(new Request(`http://sandbox.test${path}`));

describe('the compiled dashboard modules', () => {
  it('are built (npm run build), and every module one imports is built too', () => {
    const modules = builtModules();
    expect(modules.has('dashboard.js'), 'dist/browser/dashboard.js is missing: run npm run build').toBe(true);
    for (const [name, text] of modules) {
      for (const [, target] of text.matchAll(/\bfrom\s+'\.\/([^']+)'/g)) expect(modules.has(target!), `${name} imports ${target}`).toBe(true);
    }
  });

  it('are loaded by GET /sandbox as one module script under the response nonce', async () => {
    const res = await get('/sandbox');
    const nonce = /script-src 'nonce-([^']+)'/.exec(res.headers.get('content-security-policy') ?? '')?.[1];
    expect(await res.text()).toContain(`<script type="module" nonce="${nonce}" src="/sandbox/assets/dashboard.js"></script>`);
  });

  it('are served by name as JavaScript, as built', async () => {
    const res = await get('/sandbox/assets/session.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toBe(builtModules().get('session.js'));
  });

  it.each(['nothing.js', '..%2Fcli.js', '..%2F..%2Fpackage.json', 'dashboard.ts', '.check.tsbuildinfo'])('answers a 404 envelope for %s', async (file) => {
    const res = await get(`/sandbox/assets/${file}`);
    expect(res.status).toBe(404);
    const body = (await res.json()) as { code: number; description: string };
    expect(body.code).toBe(404);
    expect(body.description).toMatch(/No dashboard module|not found|No route/i);
  });

  it('answers a 500 envelope that says to build, instead of a page without its script', async () => {
    const routes = dashboardRoutes(() => new Map());
    const res = await sandbox.fetch(new Request('http://sandbox.test/sandbox'));
    expect(res.status).toBe(200);
    const app = new (await import('hono')).Hono();
    app.use(async (c, next) => {
      c.set('services' as never, sandbox.services as never);
      await next();
    });
    app.route('/', routes);
    const unbuilt = await app.request('/');
    expect(unbuilt.status).toBe(500);
    const body = (await unbuilt.json()) as { code: number; description: string };
    expect(body.code).toBe(500);
    expect(body.description).toContain('run npm run build');
  });
});

describe('readBuiltModules', () => {
  it('is empty where nothing is built yet', () => {
    expect(readBuiltModules(pathToFileURL(join(scratch, 'absent/'))).size).toBe(0);
  });

  it('takes only module file names', () => {
    writeFileSync(join(scratch, 'ok.js'), 'export const a = 1;');
    writeFileSync(join(scratch, 'Not-Ok.js'), '');
    writeFileSync(join(scratch, 'ok.js.map'), '');
    expect([...readBuiltModules(pathToFileURL(scratch + '/')).keys()]).toEqual(['ok.js']);
  });
});
