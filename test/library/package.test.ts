// The package as a consumer gets it: `npm pack`, installed into a fresh folder, runs the
// docs' "complete vitest file you can paste" (docs/library.md) as pasted, and ships what that file uses.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const run = (cmd: string, args: string[], cwd: string) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: 'true', npm_config_fund: 'false', npm_config_audit: 'false' } });

/** The consumer example of docs/library.md: the ts block after "A complete vitest file you can paste". */
function readmeConsumerExample(): string {
  const readme = readFileSync(join(ROOT, 'docs', 'library.md'), 'utf8');
  const at = readme.indexOf('file you can paste');
  expect(at).toBeGreaterThan(0);
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(at));
  expect(block).not.toBeNull();
  return block![1]!;
}

// Nothing in it depends on the store: the PostgreSQL pass of `npm test` does not pack it again.
describe.skipIf(process.env.SANDBOX_TEST_STORE === 'postgres')('the packed package in a consumer project', () => {
  let work: string;
  let files: string[];

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'payreq-consumer-'));
    // dist/ is built by `npm test` before vitest runs; packing needs no second build.
    const packed = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT)) as [{ filename: string; files: { path: string }[] }];
    files = packed[0].files.map((f) => f.path);
    const vitestVersion = (JSON.parse(readFileSync(join(ROOT, 'node_modules/vitest/package.json'), 'utf8')) as { version: string }).version;
    writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--save-dev', join(work, packed[0].filename), `vitest@${vitestVersion}`], work);
    writeFileSync(join(work, 'checkout.test.ts'), readmeConsumerExample());
  }, 240_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('ships the LICENSE, the scenarios and their schema, and no source map without its sources', () => {
    expect(files).toContain('LICENSE');
    expect(files).toContain('scenarios/scenario.schema.json');
    expect(files.filter((f) => f.startsWith('scenarios/') && f.endsWith('.yaml')).length).toBeGreaterThan(30);
    expect(files.some((f) => f.startsWith('src/'))).toBe(false);
    const maps = files.filter((f) => f.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(0);
    for (const map of maps) {
      const parsed = JSON.parse(readFileSync(join(work, 'node_modules/payreq-sandbox', map), 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
      expect(parsed.sourcesContent?.length, map).toBe(parsed.sources.length);
      expect(parsed.sourcesContent!.every((s) => typeof s === 'string' && s.length > 0), map).toBe(true);
    }
  });

  it("runs the docs' consumer example as pasted", () => {
    const out = run('npx', ['vitest', 'run', '--reporter=verbose'], work);
    expect(out).toMatch(/4 passed/);
    expect(out).toContain('replays the shipped scenario files');
  }, 240_000);
});
