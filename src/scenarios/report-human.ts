/** The report a person reads: each file and step with timing; on failure, expected versus actual and the body. */
import type { ReplayReport } from './replay.js';
import { answerOf, failingStep } from './run-scenario.js';
import type { FileResult, StepResult } from './run-scenario.js';

export interface HumanReportOptions {
  readonly color?: boolean;
  /** Show the steps of passing files too (default true). */
  readonly steps?: boolean;
}

type Paint = (code: number, text: string) => string;

function painter(color: boolean): Paint {
  return color ? (code, text) => `\x1b[${code}m${text}\x1b[0m` : (_code, text) => text;
}

const GREEN = 32;
const RED = 31;
const DIM = 2;
const BOLD = 1;

function ms(value: number): string {
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value * 10) / 10} ms`;
}

function target(step: StepResult): string {
  if (!step.request) return '';
  const url = new URL(step.request.url);
  return `  ${step.request.method} ${url.pathname}${url.search} -> ${answerOf(step)}`;
}

function indentBlock(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n');
}

function prettyBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function formatStep(step: StepResult, paint: Paint): string {
  if (step.status === 'skipped') return paint(DIM, `    - ${step.index}. ${step.name} (skipped)`);
  const mark = step.status === 'passed' ? paint(GREEN, '✓') : paint(RED, '✗');
  const lines = [`    ${mark} ${step.index}. ${step.name}${paint(DIM, `${target(step)}  ${ms(step.durationMs)}`)}`];
  if (step.status === 'failed') {
    if (step.error) lines.push(paint(RED, `        ${step.error}`));
    for (const f of step.failures) {
      lines.push(`        ${paint(BOLD, f.target)}`);
      lines.push(`          expected: ${paint(GREEN, f.expected)}`);
      lines.push(`          actual:   ${paint(RED, f.actual)}`);
    }
    if (step.response?.body !== undefined) {
      lines.push(`        response body:`);
      lines.push(paint(DIM, indentBlock(prettyBody(step.response.body), '          ')));
    }
  }
  return lines.join('\n');
}

export function formatFileResult(result: FileResult, options: HumanReportOptions = {}): string {
  const paint = painter(options.color ?? false);
  const passed = result.status === 'passed';
  const label = passed ? paint(GREEN, 'PASS') : paint(RED, 'FAIL');
  const ran = result.steps.filter((s) => s.status !== 'skipped').length;
  const lines = [`${label}  ${result.file}  ${result.name}  ${paint(DIM, `(${ran}/${result.steps.length} steps, ${ms(result.durationMs)})`)}`];
  if (result.error) lines.push(paint(RED, indentBlock(result.error, '    ')));
  if (!passed || options.steps !== false) for (const step of result.steps) lines.push(formatStep(step, paint));
  return lines.join('\n');
}

export function formatSummary(report: ReplayReport, options: HumanReportOptions = {}): string {
  const paint = painter(options.color ?? false);
  const steps = report.files.reduce((n, f) => n + f.steps.filter((s) => s.status !== 'skipped').length, 0);
  const verdict = report.failed === 0 ? paint(GREEN, `${report.passed} passed`) : `${paint(GREEN, `${report.passed} passed`)}, ${paint(RED, `${report.failed} failed`)}`;
  const lines = [`\n${report.files.length} scenario file${report.files.length === 1 ? '' : 's'}: ${verdict}; ${steps} step${steps === 1 ? '' : 's'} in ${ms(report.durationMs)} against ${report.target}`];
  for (const file of report.files.filter((f) => f.status === 'failed')) {
    const step = failingStep(file);
    lines.push(paint(RED, `  failed: ${file.file}${step ? ` at step ${step.index} "${step.name}"` : ''}`));
  }
  if (report.interrupted) {
    const { cutShort, notStarted } = report.interrupted;
    lines.push(paint(RED, `interrupted: ${report.files.length} file${report.files.length === 1 ? '' : 's'} finished, ${cutShort.length} cut short, ${notStarted} not started`));
    for (const file of cutShort) lines.push(`  cut short: ${file}`);
  }
  return lines.join('\n');
}
