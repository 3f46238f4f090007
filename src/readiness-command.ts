/** payreq-sandbox readiness: the go-live checklist of a merchant, for a terminal or CI (JUnit). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { terminal } from './command-output.js';
import type { CheckStatus, ReadinessCheck } from './domain/readiness.js';
import { xmlEscape } from './scenarios/report-junit.js';

export interface ReadinessCommandOptions {
  readonly baseUrl: string;
  readonly key: string;
  readonly junit?: string;
  /** Print the report as JSON instead of the checklist. */
  readonly json?: boolean;
}

interface ReadinessAnswer {
  readonly code: number;
  readonly description: string;
  readonly ready: boolean;
  readonly checks: readonly ReadinessCheck[];
}

const MARK: Readonly<Record<CheckStatus, string>> = { pass: 'PASS', fail: 'FAIL', not_tried: 'NOT TRIED' };

/** Prints the checklist; answers the exit code: 0 when ready, 1 when a required check is not pass, 2 when the report could not be had. */
export async function readinessCommand(options: ReadinessCommandOptions): Promise<number> {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/sandbox/v1/readiness`;
  let answer: ReadinessAnswer;
  try {
    const res = await fetch(url, { headers: { 'Service-Api-Key': options.key }, signal: AbortSignal.timeout(15_000) });
    const body = (await res.json()) as ReadinessAnswer;
    if (res.status !== 200 || !Array.isArray(body.checks)) {
      terminal.err(`readiness: ${url} answered ${res.status}: ${body.description ?? 'no report'}`);
      return 2;
    }
    answer = body;
  } catch (err) {
    terminal.err(`readiness: could not read ${url} (${err instanceof Error ? err.message : String(err)})`);
    return 2;
  }
  if (options.json) console.log(JSON.stringify(answer, null, 2));
  else printChecklist(answer);
  if (options.junit) {
    try {
      mkdirSync(dirname(options.junit), { recursive: true });
      writeFileSync(options.junit, junitOf(answer, options.baseUrl));
    } catch (err) {
      terminal.err(`readiness: could not write the JUnit report ${options.junit} (${err instanceof Error ? err.message : String(err)})`);
      return 2;
    }
  }
  return answer.ready ? 0 : 1;
}

function printChecklist(answer: ReadinessAnswer): void {
  for (const c of answer.checks) {
    console.log(`${MARK[c.status].padEnd(9)} ${c.id.padEnd(20)} ${c.required ? 'required' : 'optional'}  ${c.title}`);
    if (c.status !== 'pass' && c.advice) console.log(`          ${' '.repeat(20)} -> ${c.advice}`);
  }
  console.log(answer.ready ? '\nready for go-live: every required check passes' : '\nnot ready: a required check does not pass');
}

/** One testcase per check; a required check that does not pass is a failure, an optional one is skipped. */
export function junitOf(answer: ReadinessAnswer, target: string): string {
  const failed = answer.checks.filter((c) => c.required && c.status !== 'pass').length;
  const skipped = answer.checks.filter((c) => !c.required && c.status !== 'pass').length;
  const cases = answer.checks.map((c) => {
    const attrs = `name="${xmlEscape(c.id)}" classname="readiness" `;
    const evidence = c.evidence.length ? `\n      <system-out>${xmlEscape(c.evidence.join('\n'))}</system-out>` : '';
    if (c.status === 'pass') return `    <testcase ${attrs}>${evidence}\n    </testcase>`;
    if (!c.required) return `    <testcase ${attrs}>\n      <skipped message="${xmlEscape(`${c.status}: ${c.advice ?? ''}`)}"/>${evidence}\n    </testcase>`;
    return `    <testcase ${attrs}>\n      <failure message="${xmlEscape(`${c.status}: ${c.title}`)}" type="${c.status}">${xmlEscape(c.advice ?? '')}</failure>${evidence}\n    </testcase>`;
  });
  const counts = `tests="${answer.checks.length}" failures="${failed}" errors="0" skipped="${skipped}"`;
  return ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="payreq-sandbox readiness" ${counts}>`, `  <testsuite name="${xmlEscape(`go-live readiness at ${target}`)}" ${counts}>`, ...cases, '  </testsuite>', '</testsuites>', ''].join('\n');
}
