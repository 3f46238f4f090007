/**
 * Finds and loads scenario files (YAML or JSON). A malformed file is rejected with messages
 * that name the file, the line, the step and the field; a file is input, so one that is not a
 * regular file, too big, or a YAML bomb is rejected the same way, by name, never read whole.
 */
import { constants } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { extname, join, relative, resolve, sep } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import type { Document } from 'yaml';
import { z } from 'zod';
import { parsePath, PathSyntaxError } from './json-path.js';
import { scenarioSchema, STEP_COMMON_KEYS, STEP_KIND_NAMES, stepSchemas } from './schema.js';
import type { Expectations, Scenario, Step, StepKind } from './schema.js';
import { isMatcher, toRegExp } from './assertions.js';

export interface LoadedScenario {
  /** The path as shown in reports: relative to the working directory when inside it. */
  readonly file: string;
  readonly scenario: Scenario;
}

export interface Problem {
  readonly line?: number;
  readonly column?: number;
  /** 1-based step number, when the problem is inside a step. */
  readonly step?: number;
  readonly stepName?: string;
  /** The field, relative to the step when there is one: "expect.status". */
  readonly field?: string;
  readonly message: string;
}

export class ScenarioFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly Problem[],
  ) {
    super(problems.map((p) => formatProblem(file, p)).join('\n'));
    this.name = 'ScenarioFileError';
  }
}

function formatProblem(file: string, p: Problem): string {
  const where = p.line !== undefined ? `${file}:${p.line}:${p.column ?? 1}` : file;
  const step = p.step !== undefined ? ` step ${p.step}${p.stepName ? ` "${p.stepName}"` : ''},` : '';
  const field = p.field ? ` field ${p.field}:` : '';
  return `${where}:${step}${field} ${p.message}`;
}

const EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
/** The largest scenario file read (the shipped ones are a few KiB): parsing costs memory in proportion, so a bigger one is refused unread. */
export const MAX_SCENARIO_FILE_BYTES = 1024 * 1024;
const scenarioHeadSchema = scenarioSchema.extend({ steps: z.array(z.unknown()).min(1, 'a scenario needs at least one step') });
const MAX_PROBLEMS = 20;
const MAX_SYNTAX_ERRORS = 3;

function displayPath(path: string): string {
  const rel = relative(process.cwd(), resolve(path));
  return rel.startsWith('..') || rel === '' ? resolve(path) : rel.split(sep).join('/');
}

/** The scenario files under the given files and folders, each folder walked deeply, sorted. */
export async function findScenarioFiles(paths: readonly string[]): Promise<string[]> {
  const found = new Set<string>();
  for (const path of paths) {
    let info;
    try {
      info = await stat(path);
    } catch {
      throw new Error(`${path}: no such file or folder`);
    }
    if (info.isDirectory()) {
      const entries = await readdir(path, { recursive: true, withFileTypes: true });
      for (const entry of entries) {
        // Not only regular files: a FIFO or a device named like a scenario is reported as failed, by name.
        if (!entry.isDirectory() && EXTENSIONS.has(extname(entry.name)) && !entry.name.endsWith('.schema.json')) {
          found.add(join(entry.parentPath, entry.name));
        }
      }
    } else {
      found.add(path);
    }
  }
  return [...found].sort();
}

export async function loadScenarioFile(path: string): Promise<LoadedScenario> {
  const file = displayPath(path);
  const text = await readScenarioText(path, file);
  try {
    return { file, scenario: parseScenario(text, file) };
  } catch (err) {
    if (err instanceof ScenarioFileError) throw err;
    // The YAML parser's own refusals (an alias bomb: "Excessive alias count") belong to this file too.
    throw new ScenarioFileError(file, [{ message: `cannot be read as a scenario: ${(err as Error).message}` }]);
  }
}

/** The file's text: opened without blocking (a FIFO would wait for a writer), refused unread unless it is a regular file of at most MAX_SCENARIO_FILE_BYTES. */
async function readScenarioText(path: string, file: string): Promise<string> {
  const refuse = (message: string) => new ScenarioFileError(file, [{ message }]);
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw refuse(`cannot read the file (${(err as Error).message})`);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw refuse(`not a regular file (${info.isFIFO() ? 'a FIFO' : info.isDirectory() ? 'a folder' : info.isSocket() ? 'a socket' : 'a device'}): scenarios are read from regular files only`);
    const tooBig = refuse(`the file is over the limit of ${MAX_SCENARIO_FILE_BYTES / 1024 / 1024} MiB for a scenario (${info.size} bytes): split it into several files`);
    if (info.size > MAX_SCENARIO_FILE_BYTES) throw tooBig;
    // One byte more than its size: a file that grew since its stat is noticed, not read on.
    const buffer = Buffer.alloc(info.size + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > info.size) throw refuse('the file grew while it was read: replay it once it is written');
    return buffer.toString('utf8', 0, length);
  } catch (err) {
    if (err instanceof ScenarioFileError) throw err;
    throw refuse(`cannot read the file (${(err as Error).message})`);
  } finally {
    await handle.close();
  }
}

/** Parses and validates one scenario's text (YAML, or JSON, which YAML reads too). */
export function parseScenario(text: string, file: string): Scenario {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, merge: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ScenarioFileError(
      file,
      // After the first few, syntax errors are mostly echoes of the first.
      doc.errors.slice(0, MAX_SYNTAX_ERRORS).map((e) => {
        const pos = e.linePos?.[0];
        // The message repeats the position and quotes the line; the position leads ours already.
        const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
        return { ...(pos ? { line: pos.line, column: pos.col } : {}), message: `YAML syntax error: ${message}` };
      }),
    );
  }
  const data: unknown = doc.toJS({ maxAliasCount: 1000 });
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new ScenarioFileError(file, [{ message: `a scenario must be a mapping with name and steps, got ${Array.isArray(data) ? 'a list' : shown(data)}` }]);
  }
  const locate = (path: readonly PropertyKey[]) => position(doc, lines, path);
  const problems: Problem[] = [];

  // Each step is checked by its own kind, not against the union of every kind: the issues of
  // a union ("invalid input") would not say which field of which step is wrong.
  const head = scenarioHeadSchema.safeParse(data);
  if (!head.success) {
    for (const issue of head.error.issues) {
      for (const flat of flattenIssue(issue, [])) {
        problems.push({ ...locate(flat.path), ...(flat.path.length ? { field: flat.path.join('.') } : {}), message: flat.message });
      }
    }
  }
  const rawSteps = (data as { steps?: unknown }).steps;
  const steps = Array.isArray(rawSteps) ? rawSteps.map((raw, i) => toStep(raw, i, problems, locate)) : [];
  if (problems.length > 0 || !head.success) throw new ScenarioFileError(file, problems.slice(0, MAX_PROBLEMS));
  return { ...head.data, steps: steps as Step[] } as Scenario;
}

type Locate = (path: readonly PropertyKey[]) => { line?: number; column?: number };

function position(doc: Document, lines: LineCounter, path: readonly PropertyKey[]): { line?: number; column?: number } {
  for (let n = path.length; n >= 0; n--) {
    const node = doc.getIn(path.slice(0, n) as unknown[], true) as { range?: [number, number, number] } | undefined;
    if (node?.range) {
      const pos = lines.linePos(node.range[0]);
      return { line: pos.line, column: pos.col };
    }
  }
  return {};
}

const KEY_HINTS: Readonly<Record<string, string>> = {
  regex: 'matches',
  one_of: 'oneOf',
  oneof: 'oneOf',
  wait: 'wait_for',
  wait_until: 'wait_for',
  clock: 'advance_clock',
  advance: 'advance_clock',
  fault: 'set_fault',
  header: 'headers',
  json: 'body',
  status_code: 'status',
  captures: 'capture',
  expects: 'expect',
  assert: 'expect',
  merchant: 'as',
};

function flattenIssue(issue: z.core.$ZodIssue, base: readonly PropertyKey[]): { path: PropertyKey[]; message: string }[] {
  const path = [...base, ...issue.path];
  if (issue.code === 'invalid_union') {
    // Keep the branch that got past the type check: its issues say what is really wrong.
    const branches = issue.errors.filter((b) => !(b.length === 1 && b[0]!.code === 'invalid_type' && b[0]!.path.length === 0));
    if (branches.length === 1) return branches[0]!.flatMap((i) => flattenIssue(i, path));
  }
  if (issue.code === 'invalid_key' && issue.issues[0]) return [{ path, message: issue.issues[0].message }];
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      const hint = KEY_HINTS[key];
      return { path, message: `unknown key ${JSON.stringify(key)}${hint ? ` (did you mean "${hint}"?)` : ''}` };
    });
  }
  return [{ path, message: issue.message }];
}

function toStep(raw: unknown, index: number, problems: Problem[], locate: Locate): Step | undefined {
  const where = ['steps', index] as const;
  const stepName = raw !== null && typeof raw === 'object' && typeof (raw as { name?: unknown }).name === 'string' ? (raw as { name: string }).name : undefined;
  const at = { step: index + 1, ...(stepName ? { stepName } : {}) };
  const fail = (message: string, field?: string, path: readonly PropertyKey[] = where): undefined => {
    problems.push({ ...locate(path), ...at, ...(field ? { field } : {}), message });
  };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return fail('a step must be a mapping with one of: ' + STEP_KIND_NAMES.join(', '));
  const kinds = Object.keys(raw).filter((k): k is StepKind => (STEP_KIND_NAMES as string[]).includes(k));
  if (kinds.length !== 1) {
    const others = Object.keys(raw).filter((k) => !STEP_COMMON_KEYS.includes(k) && !kinds.includes(k as StepKind));
    const hint = others.map((k) => KEY_HINTS[k]).find(Boolean);
    return fail(
      kinds.length === 0
        ? `a step needs one of ${STEP_KIND_NAMES.join(', ')}${others.length ? ` (got ${others.join(', ')}${hint ? `; did you mean "${hint}"?` : ''})` : ''}`
        : `a step does one thing: it has ${kinds.join(' and ')}`,
    );
  }
  const kind = kinds[0]!;
  const result = stepSchemas[kind].safeParse(raw);
  if (!result.success) {
    for (const issue of result.error.issues) {
      for (const flat of flattenIssue(issue, [])) fail(flat.message, flat.path.join('.') || undefined, [...where, ...flat.path]);
    }
    return undefined;
  }
  const { name, as, timeout_ms, expect, capture } = result.data as Omit<Step, 'kind' | 'spec'>;
  if (expect) checkExpectSyntax(expect, (message, field, path) => fail(message, field, [...where, ...path]));
  for (const [variable, source] of Object.entries(capture ?? {})) {
    if (typeof source === 'string') checkPath(source, (m) => fail(m, `capture.${variable}`, [...where, 'capture', variable]));
  }
  return {
    kind,
    spec: (result.data as Record<string, unknown>)[kind],
    ...(name !== undefined ? { name } : {}),
    ...(as !== undefined ? { as } : {}),
    ...(timeout_ms !== undefined ? { timeout_ms } : {}),
    ...(expect !== undefined ? { expect } : {}),
    ...(capture !== undefined ? { capture } : {}),
  };
}

function checkPath(path: string, fail: (message: string) => void): void {
  try {
    parsePath(path);
  } catch (err) {
    if (err instanceof PathSyntaxError) fail(err.message);
    else throw err;
  }
}

/** Regular expressions and paths are checked now, not at the step that uses them. */
function checkExpectSyntax(expect: Expectations, fail: (message: string, field: string, path: PropertyKey[]) => void): void {
  const checkRegExp = (pattern: string, field: string, path: PropertyKey[]) => {
    if (pattern.includes('{{')) return;
    try {
      toRegExp(pattern);
    } catch (err) {
      fail(`not a valid regular expression: ${(err as Error).message}`, field, path);
    }
  };
  const checkMatcher = (m: unknown, field: string, path: PropertyKey[]) => {
    if (isMatcher(m) && typeof m.matches === 'string') {
      checkRegExp((m as { matches: string }).matches, `${field}.matches`, [...path, 'matches']);
    }
  };
  for (const key of ['description', 'text'] as const) {
    const e = expect[key];
    if (typeof e === 'string') checkRegExp(e, `expect.${key}`, ['expect', key]);
    else checkMatcher(e, `expect.${key}`, ['expect', key]);
  }
  for (const key of ['status', 'code'] as const) checkMatcher(expect[key], `expect.${key}`, ['expect', key]);
  for (const [path, e] of Object.entries(expect.body ?? {})) {
    checkPath(path, (m) => fail(m, `expect.body.${path}`, ['expect', 'body', path]));
    checkMatcher(e, `expect.body.${path}`, ['expect', 'body', path]);
  }
  for (const [name, e] of Object.entries(expect.headers ?? {})) checkMatcher(e, `expect.headers.${name}`, ['expect', 'headers', name]);
}

/** A value as an error quotes it: its first 60 characters, so a file that is not a scenario is named, not printed. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}... (${text.length} characters)` : text;
}
