/**
 * Every operation of /openapi.json has a curl example in a shell block the docs test runs
 * (README.md or docs/*.md), so a newcomer finds each route tried out, and the example is proved
 * to answer. HEAD, which every GET route answers alike, needs one example in all.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { memorySandbox } from '../helpers.js';
import { curlCommands, documentationPages, ROOT, runnableBlocks } from './shell-blocks.js';

interface CurlExample {
  readonly method: string;
  readonly path: string;
  readonly where: string;
}

/** The method a curl command sends: -X, else HEAD for -I, POST for a body, GET. */
function methodOf(command: string): string {
  const explicit = /\s-X\s*([A-Z]+)/.exec(command);
  if (explicit) return explicit[1]!;
  if (/\s(-[a-zA-Z]*I[a-zA-Z]*|--head)\s/.test(command)) return 'HEAD';
  return /\s(-d|--data\S*|-F)\s/.test(command) ? 'POST' : 'GET';
}

/** Each curl of the runnable blocks with the paths it names after $BASE (or $B, the pages' $BASE/sandbox/v1). */
function curlExamples(): CurlExample[] {
  const out: CurlExample[] = [];
  for (const file of documentationPages()) {
    for (const block of runnableBlocks(file, readFileSync(path.join(ROOT, file), 'utf8'))) {
      for (const command of curlCommands(block)) {
        const text = ` ${block.lines.slice(command.first - block.line, command.last - block.line + 1).join('\n')} `.replace(/\$B(?![A-Za-z_])/g, '$BASE/sandbox/v1');
        for (const m of text.matchAll(/\$\{?BASE\}?(\/[^\s"'?;)]*)/g)) out.push({ method: methodOf(text), path: m[1]!, where: `${file}:${command.first}` });
      }
    }
  }
  return out;
}

describe('the docs try out every route of /openapi.json', () => {
  let sandbox: Sandbox;
  let operations: Array<{ method: string; path: string }>;
  beforeAll(async () => {
    sandbox = await memorySandbox();
    const doc = (await (await sandbox.fetch(new Request('http://sandbox.test/openapi.json'))).json()) as { paths: Record<string, Record<string, unknown>> };
    operations = Object.entries(doc.paths).flatMap(([p, item]) => Object.keys(item).map((method) => ({ method: method.toUpperCase(), path: p })));
  });
  afterAll(() => sandbox.close());

  it('has a curl example run by the docs test for each operation but HEAD, and one HEAD example', () => {
    const examples = curlExamples();
    const tried = (method: string, route: string) => {
      const pattern = new RegExp(`^${route.replace(/\{\w+\}/g, '[^/]+')}$`);
      return examples.some((e) => e.method === method && pattern.test(e.path));
    };
    const missing = operations.filter((o) => o.method !== 'HEAD' && !tried(o.method, o.path)).map((o) => `${o.method} ${o.path}`);
    expect(missing, 'operations without a curl example in a runnable block').toEqual([]);
    expect(operations.length).toBeGreaterThan(60);
    expect(examples.filter((e) => e.method === 'HEAD').length).toBeGreaterThan(0);
  });

  it('reads a curl command the way the docs write them', () => {
    expect(methodOf(' curl -s -X PUT $BASE/x ')).toBe('PUT');
    expect(methodOf(' curl -sI $BASE/x ')).toBe('HEAD');
    expect(methodOf(' curl -s -I $BASE/x ')).toBe('HEAD');
    expect(methodOf(" curl -s $BASE/x -d '{}' ")).toBe('POST');
    expect(methodOf(' curl -s $BASE/x ')).toBe('GET');
  });
});
