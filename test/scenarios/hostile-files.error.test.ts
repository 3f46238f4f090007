/**
 * SPEC 26: scenario files are input. `replay` refuses a file over 1 MiB unread, refuses what is not
 * a regular file at once (a FIFO is never opened for a blocking read), runs assertion patterns in
 * linear time (RE2 syntax: `(a+)+$` answers at once), and reports each bad file (YAML bomb, too
 * big, FIFO, bad pattern) by name as failed while the good files still run; a 60 MB file costs
 * no memory to speak of.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkExpectations } from '../../src/scenarios/assertions.js';
import { loadScenarioFile, MAX_SCENARIO_FILE_BYTES, ScenarioFileError } from '../../src/scenarios/load.js';
import { replay } from '../../src/scenarios/replay.js';
import { removeTempDirs, tempDir } from '../support/files.js';

afterAll(removeTempDirs);

const SHIPPED = path.resolve('scenarios/api-key-missing-or-unknown.yaml');

/** Nine levels of nine aliases: 9^9 strings once expanded. */
const BOMB = ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...'bcdefghi'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`), 'name: bomb', 'steps: [{ request: { method: GET, path: /x } }]'].join('\n');

const withText = (pattern: string) => `name: pattern\nsteps:\n  - request: { method: GET, path: /healthz }\n    expect: { text: ${JSON.stringify(pattern)} }\n`;

describe('assertion patterns run in linear time', () => {
  it('(a+)+$ against 20,000 a and a "!" answers at once, as text and as matches', () => {
    const text = `${'a'.repeat(20_000)}!`;
    const started = Date.now();
    const [asText] = checkExpectations({ text: '(a+)+$' }, { outcome: 'response', status: 200, text });
    const [asMatcher] = checkExpectations({ body: { $: { matches: '/^(a|aa)+$/i' } } } as never, { outcome: 'response', status: 200, text, json: text });
    expect(asText!.passed).toBe(false);
    expect(asMatcher!.passed).toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(checkExpectations({ text: '/^A+!$/i' }, { outcome: 'response', status: 200, text })[0]!.passed).toBe(true);
  });

  it('a pattern RE2 cannot run (lookaround, backreference) is refused at load, naming file, step and field', async () => {
    const dir = tempDir('payreq-patterns-');
    for (const [name, pattern] of [['look.yaml', '(?=a)a'], ['back.yaml', '(a)\\1']] as const) {
      writeFileSync(path.join(dir, name), withText(pattern));
      const err = await loadScenarioFile(path.join(dir, name)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ScenarioFileError);
      expect((err as Error).message).toMatch(new RegExp(`${name}:4:\\d+: step 1, field expect.text: not a valid regular expression: .*\\(patterns use RE2 syntax, matched in linear time: no lookaround or backreferences\\)`));
    }
  });
});

describe('hostile files in a replayed folder', () => {
  it('a YAML bomb, a file over 1 MiB, a FIFO and a bad pattern each fail by name, at once; the good files still run and pass', async () => {
    const dir = tempDir('payreq-hostile-');
    copyFileSync(SHIPPED, path.join(dir, 'a-good.yaml'));
    copyFileSync(SHIPPED, path.join(dir, 'z-good.yaml'));
    writeFileSync(path.join(dir, 'bomb.yaml'), BOMB);
    writeFileSync(path.join(dir, 'big.yaml'), `name: big\n# ${'x'.repeat(MAX_SCENARIO_FILE_BYTES)}\n`);
    writeFileSync(path.join(dir, 'pattern.yaml'), withText('(?<=a)b'));
    mkdirSync(path.join(dir, 'sub'));
    execFileSync('mkfifo', [path.join(dir, 'sub', 'fifo.yaml')]);
    const started = Date.now();
    const report = await replay([dir]);
    expect(Date.now() - started).toBeLessThan(15_000);
    const byName = Object.fromEntries(report.files.map((f) => [path.basename(f.file), f]));
    expect(Object.keys(byName).sort()).toEqual(['a-good.yaml', 'big.yaml', 'bomb.yaml', 'fifo.yaml', 'pattern.yaml', 'z-good.yaml']);
    expect([byName['a-good.yaml']!.status, byName['z-good.yaml']!.status]).toEqual(['passed', 'passed']);
    expect(report.failed).toBe(4);
    expect(byName['bomb.yaml']!.error).toMatch(/bomb\.yaml: cannot be read as a scenario: .*alias/i);
    expect(byName['big.yaml']!.error).toMatch(/big\.yaml: the file is over the limit of 1 MiB for a scenario \(1048589 bytes\): split it into several files/);
    expect(byName['fifo.yaml']!.error).toMatch(/fifo\.yaml: not a regular file \(a FIFO\): scenarios are read from regular files only/);
    expect(byName['pattern.yaml']!.error).toMatch(/pattern\.yaml:4:\d+: step 1, field expect\.text: not a valid regular expression/);
  }, 30_000);

  it('a FIFO named on the command line is refused at once, not read', async () => {
    const fifo = path.join(tempDir('payreq-fifo-'), 'steps.yaml');
    execFileSync('mkfifo', [fifo]);
    const started = Date.now();
    const err = await loadScenarioFile(fifo).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/not a regular file \(a FIFO\)/);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a 60 MB file beside a good one: replay (its own process) stays under 300 MB of RSS and the good file passes', () => {
    const dir = tempDir('payreq-huge-');
    copyFileSync(SHIPPED, path.join(dir, 'good.yaml'));
    writeFileSync(path.join(dir, 'huge.yaml'), `name: huge\nsteps:\n${'  - request: { method: GET, path: /healthz }\n'.repeat(1_400_000)}`);
    const dist = path.resolve('dist/scenarios/index.js');
    const script = `import { replay } from ${JSON.stringify(dist)};
const report = await replay([${JSON.stringify(dir)}]);
console.log(JSON.stringify({ rssMb: process.resourceUsage().maxRSS / 1024, files: report.files.map((f) => [f.file.split('/').pop(), f.status]) }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 }).trim().split('\n').pop()!) as { rssMb: number; files: [string, string][] };
    expect(out.files).toEqual([['good.yaml', 'passed'], ['huge.yaml', 'failed']]);
    expect(out.rssMb).toBeLessThan(300);
  }, 90_000);
});
