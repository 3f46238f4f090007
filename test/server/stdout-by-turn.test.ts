/** The request log's standard output: a turn's lines go out together, in order, a warning at once, and a process that exits in the same turn still writes them. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const LOGGER = path.resolve('dist/logger.js');

function run(script: string): { stdout: string; status: number | null } {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', `import { stdoutByTurn } from ${JSON.stringify(LOGGER)};\n${script}`], { encoding: 'utf8', timeout: 15_000 });
  return { stdout: child.stdout, status: child.status };
}

describe('stdoutByTurn', () => {
  it('writes every line, in order, over many turns', () => {
    const { stdout, status } = run(`
      const out = stdoutByTurn();
      let i = 0;
      const tick = () => { for (let j = 0; j < 50; j++) out.write(\`line \${i++}\\n\`); if (i < 5000) setImmediate(tick); };
      tick();`);
    expect(status).toBe(0);
    expect(stdout.split('\n').filter(Boolean)).toEqual(Array.from({ length: 5000 }, (_, i) => `line ${i}`));
  });

  it('writes a warning or an error at once, after the lines held before it', () => {
    const { stdout, status } = run(`
      import { writeSync } from 'node:fs';
      const out = stdoutByTurn();
      out.write('{"level":30,"msg":"held"}\\n');
      out.write('{"level":40,"msg":"warned"}\\n');
      writeSync(1, 'marker\\n');
      out.write('{"level":50,"msg":"failed"}\\n');
      writeSync(1, 'marker\\n');`);
    expect(status).toBe(0);
    expect(stdout.split('\n').filter(Boolean)).toEqual(['{"level":30,"msg":"held"}', '{"level":40,"msg":"warned"}', 'marker', '{"level":50,"msg":"failed"}', 'marker']);
  });

  it('writes the lines of the turn in which the process exits', () => {
    const { stdout, status } = run(`
      const out = stdoutByTurn();
      for (let i = 0; i < 100; i++) out.write(\`early \${i}\\n\`);
      setImmediate(() => setImmediate(() => { out.write('last\\n'); process.exit(3); }));`);
    expect(status).toBe(3);
    const lines = stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(101);
    expect(lines.at(-1)).toBe('last');
  });
});
