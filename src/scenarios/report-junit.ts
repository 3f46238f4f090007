/** JUnit XML: one testcase per scenario file; a failure names the step and what it expected. */
import { hostname } from 'node:os';
import type { ReplayReport } from './replay.js';
import { answerOf, describeFailure, failingStep, failureSummary } from './run-scenario.js';
import type { FileResult } from './run-scenario.js';

// XML 1.0 allows tab, newline, carriage return and the characters from U+0020 up, minus the surrogates and U+FFFE/U+FFFF.
const NOT_XML = /[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text as XML character data or an attribute value (characters XML cannot hold become U+FFFD). */
export function xmlEscape(text: string): string {
  return text
    .replace(NOT_XML, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function stepLog(result: FileResult): string {
  return result.steps
    .map((s) => {
      const req = s.request ? ` ${s.request.method} ${s.request.url}` : '';
      const res = s.response ? ` -> ${answerOf(s)}` : '';
      return `${s.status.padEnd(7)} ${s.index}. ${s.name}${req}${res} (${s.durationMs} ms)`;
    })
    .join('\n');
}

function failureDetail(result: FileResult): string {
  if (result.error) return result.error;
  const step = failingStep(result);
  if (!step) return '';
  const lines = [`step ${step.index} "${step.name}"${step.request ? `: ${step.request.method} ${step.request.url}` : ''}`];
  if (step.error) lines.push(step.error);
  for (const f of step.failures) lines.push(describeFailure(f));
  if (step.response?.body !== undefined) lines.push(`response body: ${step.response.body}`);
  return lines.join('\n');
}

function testcase(result: FileResult): string {
  const attrs = `name="${xmlEscape(result.name)}" classname="${xmlEscape(result.file)}" file="${xmlEscape(result.file)}" time="${seconds(result.durationMs)}"`;
  const out = result.steps.length ? `\n      <system-out>${xmlEscape(stepLog(result))}</system-out>` : '';
  if (result.status === 'passed') return `    <testcase ${attrs}>${out}\n    </testcase>`;
  const type = result.error === undefined ? 'AssertionError' : result.error.startsWith('setup:') ? 'SetupError' : 'ScenarioError';
  return [
    `    <testcase ${attrs}>`,
    `      <failure message="${xmlEscape(failureSummary(result))}" type="${type}">${xmlEscape(failureDetail(result))}</failure>${out}`,
    `    </testcase>`,
  ].join('\n');
}

/** A file a Ctrl-C cut short: skipped, saying so (files that never started are left out). */
function cutShortTestcase(file: string): string {
  const attrs = `name="${xmlEscape(file)}" classname="${xmlEscape(file)}" file="${xmlEscape(file)}" time="0.000"`;
  return `    <testcase ${attrs}>\n      <skipped message="interrupted (SIGINT) before this file finished"/>\n    </testcase>`;
}

export function junitXml(report: ReplayReport): string {
  const cutShort = report.interrupted?.cutShort ?? [];
  const counts = `tests="${report.files.length + cutShort.length}" failures="${report.failed}" errors="0" skipped="${cutShort.length}" time="${seconds(report.durationMs)}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="payreq-sandbox replay" ${counts}>`,
    `  <testsuite name="${xmlEscape(`scenarios against ${report.target}`)}" ${counts} timestamp="${report.startedAt}" hostname="${xmlEscape(hostname())}">`,
    ...report.files.map(testcase),
    ...cutShort.map(cutShortTestcase),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
