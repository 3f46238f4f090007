/** Types of round-robin-proxy.js (plain JavaScript, imported by the TypeScript tests). */
export interface RoundRobinProxy {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** served[i]: requests sent to upstreams[i]. */
  readonly served: number[];
  close(): Promise<void>;
}

export function startRoundRobinProxy(upstreams: string[], options?: { port?: number }): Promise<RoundRobinProxy>;
