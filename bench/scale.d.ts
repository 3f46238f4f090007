/** Types of scale.js (plain JavaScript, imported by the TypeScript tests). */
export interface ScaleOptions {
  merchants?: number;
  /** Every n-th merchant gets `limit` as its rate_limit_per_second (0: none). */
  limitedEvery?: number;
  limit?: number;
  /** Requests per second in all. */
  rate?: number;
  /** Seconds of load, and the first seconds left out of the latencies. */
  duration?: number;
  warmup?: number;
  polls?: number;
  pollIntervalMs?: number;
  connections?: number;
  timeoutMs?: number;
  /** Instances on one PostgreSQL database (2 unless said); the file store and one instance without it. */
  postgres?: { freshDatabase(): Promise<string>; cpuMs?(): number };
  instances?: number;
  log?: (line: string) => void;
}

export interface LatencySummary {
  count: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
}

export interface ScaleResult {
  store: 'file' | 'postgres';
  instances: number;
  options: Required<Omit<ScaleOptions, 'postgres' | 'log' | 'instances'>>;
  enrolMs: number;
  seconds: number;
  requests: number;
  reqPerSec: number;
  flows: number;
  skippedTurns: number;
  /** Per kind, answers by HTTP status. */
  statuses: { create: Record<string, number>; poll: Record<string, number> };
  perInstance: number[];
  errors: number;
  errorSamples: string[];
  latency: { create: LatencySummary; poll: LatencySummary };
  limited: {
    merchants: number;
    admitted: number;
    refused429: number;
    mostAdmittedWithinASecond: number;
    overTheLimit: Array<{ payee: string; limit: number; admittedWithinASecond: number }>;
  };
  cpuUsPerReq: number;
  pgCpuUsPerReq?: number;
  rss: { startMB: number; enrolledMB: number; peakMB: number; endMB: number; perInstanceEndMB: number[] };
  /** Empty when the run had no errors and the limit held. */
  problems: string[];
}

export const SCALE_DEFAULTS: Required<Omit<ScaleOptions, 'postgres' | 'log' | 'instances'>> & { postgresRate: number };
export function runScale(options?: ScaleOptions): Promise<ScaleResult>;
export function describeScale(result: ScaleResult): string[];
export function scaleCommand(argv: string[]): Promise<void>;
