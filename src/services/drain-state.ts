/**
 * Whether this instance still takes new work. A balancer reads it through GET /readyz: once the
 * instance drains (a SIGTERM, say), /readyz answers 503 so the balancer stops sending to it,
 * while requests that still arrive are served as usual.
 */
export class DrainState {
  private why: string | undefined;

  /** From now on /readyz answers 503 naming `reason`; the first reason given stays. */
  start(reason: string): void {
    this.why ??= reason;
  }

  /** Why the instance drains, or undefined while it takes work. */
  get reason(): string | undefined {
    return this.why;
  }
}
