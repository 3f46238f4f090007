/**
 * The shell examples of README.md and of every docs/*.md page run as a newcomer pastes them:
 * each page's runnable blocks (test/docs/shell-blocks.ts), in page order, in one bash
 * (-euo pipefail, so what a block captures, ID or TOKEN, is there for the next), against a real
 * `serve` process of the page's own; pages run at the same time. Each curl must answer what its
 * label says (2xx by default). A failure names the file and line of the command, and of its block.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { curlCommands, documentationPages, ROOT, runnableBlocks, where } from '../docs/shell-blocks.js';
import type { Block, CurlCommand } from '../docs/shell-blocks.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { freePort } from '../support/ports.js';
import { CLI, killQuietly, startServer } from '../support/processes.js';
import type { ServerProcess } from '../support/processes.js';

interface ShellRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `script` with bash -euo pipefail in `cwd`, in its own process group (killed after, with what the blocks left in the background). */
async function runBash(file: string, cwd: string, env: Record<string, string>, timeoutMs: number): Promise<ShellRun> {
  const child = spawn('bash', ['-euo', 'pipefail', file], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), timeoutMs);
  try {
    const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // The group is gone already.
    }
  }
}

/** What a block printed: the text between its marker and the next. */
function outputOf(text: string, index: number): string {
  const start = text.indexOf(`@@block ${index}\n`);
  if (start < 0) return '';
  const end = text.indexOf(`@@block ${index + 1}\n`, start);
  return text.slice(start + `@@block ${index}\n`.length, end < 0 ? undefined : end).replace(/@@curl \d+ \d{3}\n?/g, '');
}

/**
 * A folder that stands in for a clone's root: `examples/` as in the repository, and on the PATH an
 * `npx` that runs this build's `payreq-sandbox` (as npx does in a clone after `npm ci`) and never
 * reaches a registry; no bare `payreq-sandbox`, which a clone does not have on its PATH either.
 */
function cloneLikeDir(prefix: string): { dir: string; path: string } {
  const dir = tempDir(prefix);
  symlinkSync(path.join(ROOT, 'examples'), path.join(dir, 'examples'));
  const bin = path.join(dir, '.bin');
  mkdirSync(bin);
  const npx = `#!/bin/sh\nif [ "$1" = payreq-sandbox ]; then shift; exec "${process.execPath}" "${CLI}" "$@"; fi\necho "npx $1: only npx payreq-sandbox runs in the docs tests" >&2; exit 127\n`;
  writeFileSync(path.join(bin, 'npx'), npx, { mode: 0o755 });
  return { dir, path: `${bin}:${path.dirname(process.execPath)}:${process.env.PATH ?? ''}` };
}

/** Runs one page's blocks in one bash against its own server; answers the problems found. */
async function runPage(blocks: readonly Block[], servers: ServerProcess[]): Promise<string[]> {
  const file = blocks[0]!.file;
  const { dir, path: PATH } = cloneLikeDir(`payreq-docs-${path.basename(file, '.md')}-`);
  const server = await startServer(path.join(dir, 'sandbox.json'), { SANDBOX_LOG: 'off' });
  servers.push(server);

  // The script: a curl that reports its status and line on stderr, then each block after a marker.
  const script = ['curl() { command curl -w "%{stderr}@@curl ${BASH_LINENO[0]} %{http_code}\\n" "$@"; }'];
  const pageLineOf = new Map<number, number>();
  blocks.forEach((block, index) => {
    script.push(`echo "@@block ${index}"; echo "@@block ${index}" >&2`);
    block.lines.forEach((text, i) => {
      script.push(text);
      pageLineOf.set(script.length, block.line + i);
    });
  });
  script.push('echo "@@block end"; echo "@@block end" >&2');
  const scriptFile = path.join(dir, 'page.sh');
  writeFileSync(scriptFile, `${script.join('\n')}\n`);

  const env = { BASE: server.url, HOOKS_PORT: String(await freePort()), PATH };
  const run = await runBash(scriptFile, dir, env, 25_000);

  const failed = [...run.stderr.matchAll(/@@block (\d+)\n/g)].at(-1);
  const lastStarted = failed ? Number(failed[1]) : 0;
  const blockOutput = (index: number) => `\n--- its output ---\n${outputOf(run.stdout, index)}${outputOf(run.stderr, index)}`.slice(0, 6000);
  if (run.code !== 0) {
    const block = blocks[lastStarted]!;
    return [`${where(block.line, block)} failed: bash exited with ${run.code}${blockOutput(lastStarted)}`];
  }

  const commands = blocks.flatMap(curlCommands);
  const ran = new Set<CurlCommand>();
  const problems: string[] = [];
  for (const [, scriptLine, status] of run.stderr.matchAll(/@@curl (\d+) (\d{3})/g)) {
    const pageLine = pageLineOf.get(Number(scriptLine));
    const command = commands.find((c) => pageLine !== undefined && c.first <= pageLine && pageLine <= c.last);
    if (!command) {
      problems.push(`a curl at script line ${scriptLine} (${file}:${pageLine}) is no curl command the test found in ${file}`);
      continue;
    }
    ran.add(command);
    const answered = Number(status);
    const ok = command.expected === '2xx' ? answered >= 200 && answered < 300 : answered === command.expected;
    if (!ok) {
      const said = command.expected === '2xx' ? 'a 2xx' : command.expected === 0 ? 'no answer (000)' : String(command.expected);
      problems.push(`${where(command.first, command.block)}: curl answered ${answered}, the page says ${said}${blockOutput(blocks.indexOf(command.block))}`);
    }
  }
  for (const command of commands) if (!ran.has(command)) problems.push(`${where(command.first, command.block)}: this curl never ran`);
  return problems;
}

describe('the shell examples of the README and the docs', () => {
  const servers: ServerProcess[] = [];
  afterAll(() => {
    for (const server of servers) killQuietly(server);
    removeTempDirs();
  });

  const pages = documentationPages().map((file) => ({ file, blocks: runnableBlocks(file, readFileSync(path.join(ROOT, file), 'utf8')) }));
  const runnable = pages.filter((p) => p.blocks.length > 0);

  it('are found, every page that runs starts with the address, and every label is on a curl command', () => {
    expect(pages.find((p) => p.file === 'README.md')!.blocks.length).toBeGreaterThan(2);
    expect(runnable.length).toBeGreaterThan(8);
    for (const { blocks } of runnable) {
      expect(blocks[0]!.lines.join('\n'), `${where(blocks[0]!.line, blocks[0]!)} sets BASE`).toMatch(/^BASE=/m);
      for (const block of blocks) curlCommands(block);
    }
  });

  it.concurrent.each(runnable.map((p) => [p.file, p.blocks] as const))('%s runs top to bottom in one shell against a real server of its own, each curl answering what the page says', async (_file, blocks) => {
    const problems = await runPage(blocks, servers);
    expect(problems, problems.join('\n\n')).toEqual([]);
  }, 40_000);
});
