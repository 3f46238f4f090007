/** Runs one scenario file: enroll its merchant, then its steps in order until one fails. */
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sendWaitingOut429 } from './waits.js';
import type { ReplayWait } from './waits.js';
import { checkExpectations } from './assertions.js';
import type { AssertionResult, Outcome } from './assertions.js';
import { exchange } from './http.js';
import type { Exchange, OutgoingRequest, Transport } from './http.js';
import { getPath, parsePath } from './json-path.js';
import type { LoadedScenario } from './load.js';
import type { Expectations, Step } from './schema.js';
import { defaultStepName, planRequest } from './steps.js';
import type { PlannedRequest } from './steps.js';
import { render, TemplateError } from './template.js';
import type { TemplateScope } from './template.js';

/** Where a replay sends its requests. */
export interface ReplayTarget {
  readonly baseUrl: string;
  readonly transport: Transport;
  /** For reports: "in-process sandbox" or the base URL. */
  readonly label: string;
}

export interface ScenarioRunOptions {
  /** Default client timeout of a request, ms. */
  readonly timeoutMs: number;
  /** Sent as `Authorization: Bearer` when enrolling, for a sandbox with SANDBOX_ADMIN_TOKEN. */
  readonly adminToken?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** A merchant_ref_no never used before in this replay. */
  readonly freshRef: (prefix?: string) => string;
  /** Told as a wait for a 429's Retry-After starts (enrolment limit, rate limit). */
  readonly onWait?: (wait: ReplayWait) => void;
}

export interface StepResult {
  /** 1-based, as in messages. */
  readonly index: number;
  readonly name: string;
  readonly kind: Step['kind'];
  readonly status: 'passed' | 'failed' | 'skipped';
  readonly durationMs: number;
  readonly request?: { readonly method: string; readonly url: string };
  readonly response?: { readonly outcome: Outcome; readonly status?: number; readonly body?: string };
  /** How many assertions were checked, and those that failed. */
  readonly checked: number;
  readonly failures: readonly AssertionResult[];
  /** A failure that is not an assertion: a template, a capture, the merchant alias. */
  readonly error?: string;
}

export interface FileResult {
  readonly file: string;
  readonly name: string;
  readonly status: 'passed' | 'failed';
  readonly durationMs: number;
  readonly steps: readonly StepResult[];
  /** Why the file could not run: it is malformed, or its merchant could not be enrolled. */
  readonly error?: string;
  /** The payee id of the merchant enrolled for the file. */
  readonly payeeId?: string;
}

interface MerchantVars {
  readonly api_key: string;
  readonly payee_id: string;
  readonly signing_salt?: string;
  readonly home_currency?: string;
}

const USER_AGENT = 'payreq-sandbox-replay';
const DEFAULT_WAIT_MS = 5000;
const DEFAULT_POLL_MS = 100;
const MAX_BODY_SHOWN = 4000;

export function failingStep(result: FileResult): StepResult | undefined {
  return result.steps.find((s) => s.status === 'failed');
}

/** One failed expectation as a line: what was looked at, what was expected, what was found. */
export function describeFailure(f: StepResult['failures'][number]): string {
  return `${f.target}: expected ${f.expected}, got ${f.actual}`;
}

/** What a step's request got: its HTTP status, or what happened instead (timeout, dropped...). */
export function answerOf(step: StepResult): string {
  return step.response?.outcome === 'response' ? `${step.response.status}` : (step.response?.outcome ?? '');
}

/** One line naming what failed: the step and its first failure, or the file's error. */
export function failureSummary(result: FileResult): string {
  if (result.error) return result.error;
  const step = failingStep(result);
  if (!step) return '';
  const first = step.failures[0];
  const why = step.error ?? (first ? describeFailure(first) : 'failed');
  return `step ${step.index} "${step.name}": ${why}`;
}

class ScenarioRun {
  private readonly vars = new Map<string, unknown>();
  private readonly scope: TemplateScope;

  constructor(
    private readonly loaded: LoadedScenario,
    private readonly target: ReplayTarget,
    private readonly options: ScenarioRunOptions,
  ) {
    this.scope = { vars: this.vars, env: options.env, freshRef: options.freshRef };
  }

  async run(): Promise<FileResult> {
    const started = performance.now();
    const { scenario, file } = this.loaded;
    const done = (steps: StepResult[], error?: string): FileResult => ({
      file,
      name: scenario.name,
      status: error || steps.some((s) => s.status === 'failed') ? 'failed' : 'passed',
      durationMs: Math.round(performance.now() - started),
      steps,
      ...(error ? { error } : {}),
      ...(this.vars.has('payee_id') ? { payeeId: String(this.vars.get('payee_id')) } : {}),
    });

    const setupError = await this.enrollScenarioMerchant();
    if (setupError) return done([], setupError);
    try {
      for (const [name, value] of Object.entries(scenario.vars ?? {})) this.vars.set(name, render(value, this.scope));
    } catch (err) {
      return done([], `vars: ${(err as Error).message}`);
    }

    const results: StepResult[] = [];
    for (const [i, step] of scenario.steps.entries()) {
      const name = step.name ?? defaultStepName(step.kind, step.spec);
      if (results.some((r) => r.status === 'failed')) {
        results.push({ index: i + 1, name, kind: step.kind, status: 'skipped', durationMs: 0, checked: 0, failures: [] });
        continue;
      }
      results.push(await this.runStep(step, i + 1, name));
    }
    return done(results);
  }

  /** Enrolls the file's own merchant; answers why it could not, or undefined. */
  private async enrollScenarioMerchant(): Promise<string | undefined> {
    const settings = { name: `replay ${basename(this.loaded.file)}`.slice(0, 64), ...this.loaded.scenario.merchant };
    // A sandbox limits enrolments per client (SPEC 15): wait as told and try again, as a client should.
    const seen = await sendWaitingOut429(
      () => this.send({ method: 'POST', path: '/sandbox/v1/merchants', json: settings }, undefined, this.options.timeoutMs),
      this.teller("enrolling the file's merchant"),
    );
    const merchant = merchantFrom(seen.json);
    if (seen.outcome !== 'response' || !merchant) {
      const what = seen.outcome === 'response' ? `HTTP ${seen.status}: ${seen.text?.slice(0, 500)}` : seen.error;
      return `setup: could not enroll the scenario's merchant at ${this.target.label} (${what})`;
    }
    this.vars.set('merchant', merchant);
    for (const [key, value] of Object.entries(merchant)) this.vars.set(key, value);
    return undefined;
  }

  private async runStep(step: Step, index: number, name: string): Promise<StepResult> {
    const started = performance.now();
    const base = { index, name, kind: step.kind };
    const finish = (seen: Exchange | undefined, checked: number, failures: AssertionResult[], error?: string): StepResult => {
      const failed = failures.length > 0 || error !== undefined;
      return {
        ...base,
        status: failed ? 'failed' : 'passed',
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        ...(seen ? { request: { method: seen.request.method, url: seen.request.url } } : {}),
        ...(seen
          ? {
              response: {
                outcome: seen.outcome,
                ...(seen.status !== undefined ? { status: seen.status } : {}),
                ...(failed && seen.text !== undefined ? { body: seen.text.slice(0, MAX_BODY_SHOWN) } : {}),
              },
            }
          : {}),
        checked,
        failures,
        ...(error !== undefined ? { error } : {}),
      };
    };

    let spec: unknown;
    let expect: Expectations;
    let apiKey: string;
    try {
      apiKey = this.apiKeyFor(step.as);
      spec = render(step.spec, this.scope);
      expect = render(step.expect ?? {}, this.scope) as Expectations;
    } catch (err) {
      if (err instanceof TemplateError || err instanceof StepError) return finish(undefined, 0, [], err.message);
      throw err;
    }
    const timeoutMs = step.timeout_ms ?? this.loaded.scenario.timeout_ms ?? this.options.timeoutMs;
    const planned = planRequest(step.kind, spec);

    const waited = step.kind === 'wait_for' ? await this.waitFor(spec as WaitSpec, planned, apiKey, timeoutMs) : undefined;
    const sendOnce = () => this.send(planned, apiKey, timeoutMs);
    // An enroll step meets the enrolment limit as the file's own enrolment does.
    const seen = waited?.seen ?? (await (step.kind === 'enroll' ? sendWaitingOut429(sendOnce, this.teller(`step ${index} (${name})`)) : sendOnce()));
    if (step.kind !== 'request' && expect.outcome === undefined && expect.status === undefined && expect.code === undefined) {
      // A sandbox action is expected to succeed unless the step says otherwise.
      expect = { ...expect, code: 200 };
    }
    const results = waited?.failure ? [waited.failure] : checkExpectations(expect, seen);
    const failures = results.filter((r) => !r.passed);
    if (failures.length > 0) return finish(seen, results.length, failures);

    try {
      this.capture(step, seen);
    } catch (err) {
      if (err instanceof StepError) return finish(seen, results.length, [], err.message);
      throw err;
    }
    return finish(seen, results.length, []);
  }

  private apiKeyFor(alias: string | undefined): string {
    const merchant = this.vars.get(alias ?? 'merchant') as Partial<MerchantVars> | undefined;
    if (typeof merchant?.api_key !== 'string') throw new StepError(`as: no merchant ${JSON.stringify(alias)}: enroll it first with enroll: {as: ${alias}}`);
    return merchant.api_key;
  }

  private capture(step: Step, seen: Exchange): void {
    if (step.kind === 'enroll') {
      const merchant = merchantFrom(seen.json);
      if (!merchant) throw new StepError('enroll: the answer has no api_key and payee_id');
      this.vars.set((step.spec as { as: string }).as, merchant);
    }
    for (const [variable, source] of Object.entries(step.capture ?? {})) {
      if (typeof source === 'string') {
        const at = getPath(seen.json, parsePath(source));
        if (!at.found) throw new StepError(`capture ${variable}: the response body has nothing at ${source}`);
        this.vars.set(variable, at.value);
      } else {
        const value = seen.headers?.get(source.header);
        if (value === null || value === undefined) throw new StepError(`capture ${variable}: the response has no header ${source.header}`);
        this.vars.set(variable, value);
      }
    }
  }

  private async waitFor(spec: WaitSpec, planned: PlannedRequest, apiKey: string, timeoutMs: number): Promise<{ seen: Exchange; failure?: AssertionResult }> {
    const wanted = [spec.status].flat();
    const within = spec.within_ms ?? DEFAULT_WAIT_MS;
    const deadline = performance.now() + within;
    for (let polls = 1; ; polls++) {
      const seen = await this.send(planned, apiKey, timeoutMs);
      const status = getPath(seen.json, ['payment_status']);
      if (seen.outcome === 'response' && wanted.includes(status.value as string)) return { seen };
      const pause = spec.every_ms ?? DEFAULT_POLL_MS;
      if (performance.now() + pause > deadline) {
        const actual =
          seen.outcome !== 'response'
            ? (seen.error ?? seen.outcome)
            : status.found
              ? `payment_status ${JSON.stringify(status.value)} after ${polls} poll${polls === 1 ? '' : 's'}`
              : `HTTP ${seen.status} without payment_status`;
        return { seen, failure: { target: 'payment_status', passed: false, expected: `${wanted.join(' or ')} within ${within} ms`, actual } };
      }
      await sleep(pause);
    }
  }

  private teller(before: string): (seconds: number, reason: string) => void {
    return (seconds, reason) => this.options.onWait?.({ file: this.loaded.file, before, reason, seconds });
  }

  private send(planned: PlannedRequest, apiKey: string | undefined, timeoutMs: number): Promise<Exchange> {
    return exchange(this.target.transport, this.outgoing(planned, apiKey), timeoutMs);
  }

  private outgoing(planned: PlannedRequest, apiKey: string | undefined): OutgoingRequest {
    const headers = new Map<string, [string, string]>();
    const set = (name: string, value: string | null) => {
      if (value === null) headers.delete(name.toLowerCase());
      else headers.set(name.toLowerCase(), [name, value]);
    };
    set('User-Agent', USER_AGENT);
    if (apiKey !== undefined) set('Service-Api-Key', apiKey);
    if (planned.path === '/sandbox/v1/merchants' && this.options.adminToken) set('Authorization', `Bearer ${this.options.adminToken}`);
    const body = planned.raw ?? (planned.json === undefined ? undefined : JSON.stringify(planned.json));
    if (body !== undefined) set('Content-Type', 'application/json');
    for (const [name, value] of Object.entries(planned.headers ?? {})) set(name, value === null ? null : String(value));

    const query = Object.entries(planned.query ?? {});
    const search = query.length ? `?${new URLSearchParams(query.map(([k, v]): [string, string] => [k, String(v)])).toString()}` : '';
    return {
      method: planned.method,
      url: `${this.target.baseUrl}${planned.path}${search}`,
      headers: Object.fromEntries([...headers.values()]),
      ...(body !== undefined ? { body } : {}),
    };
  }
}

interface WaitSpec {
  readonly payment: string;
  readonly status: string | readonly string[];
  readonly within_ms?: number;
  readonly every_ms?: number;
}

class StepError extends Error {}

function merchantFrom(json: unknown): MerchantVars | undefined {
  const body = json as Record<string, unknown> | undefined;
  if (typeof body?.api_key !== 'string' || typeof body.payee_id !== 'string') return undefined;
  return {
    api_key: body.api_key,
    payee_id: body.payee_id,
    ...(typeof body.signing_salt === 'string' ? { signing_salt: body.signing_salt } : {}),
    ...(typeof body.home_currency === 'string' ? { home_currency: body.home_currency } : {}),
  };
}

export function runScenario(loaded: LoadedScenario, target: ReplayTarget, options: ScenarioRunOptions): Promise<FileResult> {
  return new ScenarioRun(loaded, target, options).run();
}
