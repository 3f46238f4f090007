/**
 * The shell blocks of a Markdown page and the curl commands in them, with what each should answer.
 * A block is ```sh (or ```bash, ```shell) unless its info string says `no-run`. A curl must answer
 * 2xx unless a comment labels it: `# answers 402: ...` on the line before it or at the end of its
 * command, or `# answers nothing` (curl gives up: status 000).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHELLS = new Set(['sh', 'bash', 'shell']);

/** The pages whose shell blocks run: README.md, then every docs/*.md (paths relative to the root). */
export function documentationPages(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort();
  return ['README.md', ...docs.map((f) => `docs/${f}`)];
}

export interface Block {
  /** The page, relative to the root (README.md, docs/webhooks.md). */
  readonly file: string;
  /** Line of the block's first line of code (1-based). */
  readonly line: number;
  readonly lines: readonly string[];
}

/** What a curl command should answer: any 2xx, one status, or nothing at all (curl's 000). */
export type Expected = '2xx' | number;

export interface CurlCommand {
  /** Lines of the whole command (continuation lines and multi-line quotes included). */
  readonly first: number;
  readonly last: number;
  readonly expected: Expected;
  readonly block: Block;
}

export function runnableBlocks(file: string, markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(.*)$/.exec(lines[i]!);
    if (!fence) continue;
    const words = fence[1]!.trim().split(/\s+/);
    const start = i + 1;
    while (++i < lines.length && !/^```\s*$/.test(lines[i]!));
    if (SHELLS.has(words[0]!) && !words.includes('no-run')) blocks.push({ file, line: start + 1, lines: lines.slice(start, i) });
  }
  return blocks;
}

const LABEL = /#\s*answers (\d{3}|nothing)\b/;
const CURL = /(^|[\s;|&(])curl\s/;

/** `where` for messages: the file and line, and the block it is in. */
export function where(line: number, block: Block): string {
  return `${block.file}:${line} (block at ${block.file}:${block.line}: ${JSON.stringify(block.lines[0])})`;
}

/**
 * The curl commands of a block with what each should answer. A command runs until a line ends
 * outside quotes and without a backslash; `#` outside quotes starts a comment.
 */
export function curlCommands(block: Block): CurlCommand[] {
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
