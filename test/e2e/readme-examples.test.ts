/**
 * The README's shell examples run top to bottom, as a newcomer pastes them: every ```sh (or
 * ```bash) block but those whose info string says `no-run`, in README order, in one bash
 * (-euo pipefail, so what a block captures, ID or TOKEN, is there for the next), against a real
 * `serve` process. Each curl must answer 2xx unless a comment labels it: `# answers 402: ...` on
 * the line before it or at the end of its command, or `# answers nothing` (curl gives up: status
 * 000). A failure names the README line of the command, and of its block with its first line.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../support/files.js';
import { freePort } from '../support/ports.js';
import { CLI, killQuietly, startServer } from '../support/processes.js';
import type { ServerProcess } from '../support/processes.js';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const SHELLS = new Set(['sh', 'bash', 'shell']);

interface Block {
  /** README line of the block's first line of code (1-based). */
  readonly line: number;
  readonly lines: readonly string[];
}

/** What a curl command should answer: any 2xx, one status, or nothing at all (curl's 000). */
type Expected = '2xx' | number;

interface CurlCommand {
  /** README lines of the whole command (continuation lines and multi-line quotes included). */
  readonly first: number;
  readonly last: number;
  readonly expected: Expected;
  readonly block: Block;
}

function runnableBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(.*)$/.exec(lines[i]!);
    if (!fence) continue;
    const words = fence[1]!.trim().split(/\s+/);
    const start = i + 1;
    while (++i < lines.length && !/^```\s*$/.test(lines[i]!));
    if (SHELLS.has(words[0]!) && !words.includes('no-run')) blocks.push({ line: start + 1, lines: lines.slice(start, i) });
  }
  return blocks;
}

const LABEL = /#\s*answers (\d{3}|nothing)\b/;
const CURL = /(^|[\s;|&(])curl\s/;

/** `where` for messages: the README line and the block it is in. */
function where(line: number, block: Block): string {
  return `README.md:${line} (block at README.md:${block.line}: ${JSON.stringify(block.lines[0])})`;
}

/**
 * The curl commands of a block with what each should answer. A command runs until a line ends
 * outside quotes and without a backslash; `#` outside quotes starts a comment.
 */
function curlCommands(block: Block): CurlCommand[] {
  const out: CurlCommand[] = [];
  let pending: Expected | undefined;
  let code = '';
  let comments = '';
  let first = -1;
  let quote: '"' | "'" | null = null;
  const labelOf = (text: string): Expected | undefined => {
    const m = LABEL.exec(text);
    return m ? (m[1] === 'nothing' ? 0 : Number(m[1])) : undefined;
  };
  block.lines.forEach((text, index) => {
    const line = block.line + index;
    if (first < 0) first = line;
    let comment = '';
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      if (quote === "'") {
        if (ch === "'") quote = null;
      } else if (quote === '"') {
        if (ch === '\\') i++;
        else if (ch === '"') quote = null;
      } else if (ch === '\\') {
        i++;
      } else if (ch === "'" || ch === '"') {
        quote = ch;
      } else if (ch === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
        comment = text.slice(i);
        text = text.slice(0, i);
        break;
      }
    }
    code += `${text}\n`;
    comments += comment;
    if (quote || text.trimEnd().endsWith('\\')) return;
    const label = labelOf(comments);
    if (code.trim() === '') {
      // A comment line: its label is for the command that follows; a blank line ends it.
      if (label !== undefined) pending = label;
      else if (comments === '') pending = undefined;
    } else if (CURL.test(code)) {
      out.push({ first, last: line, expected: label ?? pending ?? '2xx', block });
      pending = undefined;
    } else if (label !== undefined || pending !== undefined) {
      throw new Error(`${where(line, block)}: "answers ..." labels a command that runs no curl`);
    }
    code = '';
    comments = '';
    first = -1;
  });
  if (quote || code.trim() !== '') throw new Error(`${where(block.line + block.lines.length - 1, block)}: the block ends inside a quote or a continued line`);
  return out;
}

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

describe('the README shell examples', () => {
  let server: ServerProcess | undefined;
  afterAll(() => {
    killQuietly(server);
    removeTempDirs();
  });

  const blocks = runnableBlocks(readFileSync(README, 'utf8'));

  it('are found, and every label is on a curl command', () => {
    expect(blocks.length).toBeGreaterThan(10);
    expect(blocks[0]!.lines.join('\n')).toMatch(/^BASE=/m);
    for (const block of blocks) curlCommands(block);
  });

  it('run top to bottom in one shell against a real server, each curl answering what the README says', async () => {
    const dir = tempDir('payreq-readme-');
    server = await startServer(path.join(dir, 'sandbox.json'), { SANDBOX_LOG: 'off' });

    // The script: a curl that reports its status and line on stderr, then each block after a marker.
    const script = ['curl() { command curl -w "%{stderr}@@curl ${BASH_LINENO[0]} %{http_code}\\n" "$@"; }'];
    const readmeLineOf = new Map<number, number>();
    blocks.forEach((block, index) => {
      script.push(`echo "@@block ${index}"; echo "@@block ${index}" >&2`);
      block.lines.forEach((text, i) => {
        script.push(text);
        readmeLineOf.set(script.length, block.line + i);
      });
    });
    script.push('echo "@@block end"; echo "@@block end" >&2');
    const file = path.join(dir, 'readme.sh');
    writeFileSync(file, `${script.join('\n')}\n`);

    // `payreq-sandbox` on the PATH is this build's, as `npm install -g` would make it (no npx: it could fetch from the registry).
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'payreq-sandbox'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
    const env = { BASE: server.url, HOOKS_PORT: String(await freePort()), PATH: `${bin}:${path.dirname(process.execPath)}:${process.env.PATH ?? ''}` };
    const run = await runBash(file, dir, env, 25_000);

    const failed = [...run.stderr.matchAll(/@@block (\d+)\n/g)].at(-1);
    const lastStarted = failed ? Number(failed[1]) : 0;
    const blockOutput = (index: number) => `\n--- its output ---\n${outputOf(run.stdout, index)}${outputOf(run.stderr, index)}`.slice(0, 6000);
    if (run.code !== 0) {
      const block = blocks[lastStarted]!;
      throw new Error(`${where(block.line, block)} failed: bash exited with ${run.code}${blockOutput(lastStarted)}`);
    }

    const commands = blocks.flatMap(curlCommands);
    const ran = new Set<CurlCommand>();
    const problems: string[] = [];
    for (const [, scriptLine, status] of run.stderr.matchAll(/@@curl (\d+) (\d{3})/g)) {
      const readmeLine = readmeLineOf.get(Number(scriptLine));
      const command = commands.find((c) => readmeLine !== undefined && c.first <= readmeLine && readmeLine <= c.last);
      if (!command) {
        problems.push(`a curl at script line ${scriptLine} (README.md:${readmeLine}) is no curl command the test found in the README`);
        continue;
      }
      ran.add(command);
      const answered = Number(status);
      const ok = command.expected === '2xx' ? answered >= 200 && answered < 300 : answered === command.expected;
      if (!ok) {
        const said = command.expected === '2xx' ? 'a 2xx' : command.expected === 0 ? 'no answer (000)' : String(command.expected);
        problems.push(`${where(command.first, command.block)}: curl answered ${answered}, the README says ${said}${blockOutput(blocks.indexOf(command.block))}`);
      }
    }
    for (const command of commands) if (!ran.has(command)) problems.push(`${where(command.first, command.block)}: this curl never ran`);
    expect(problems, problems.join('\n\n')).toEqual([]);
  }, 40_000);
});
