/**
 * The waits of a replay: a sandbox that answers 429 (its enrolment limit, a rate limit) is waited
 * out as its Retry-After says, and each wait is told (one line on stderr from the command), so a
 * user never watches a pause without knowing what it is for and how long it lasts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Exchange } from './http.js';

/** One wait, as it starts. */
export interface ReplayWait {
  /** The scenario file. */
  readonly file: string;
  /** What is sent again after it: "enrolling the file's merchant", "step 2 (enroll other)". */
  readonly before: string;
  /** What the sandbox said: the 429's description up to its first colon ("Enrolment limit reached"). */
  readonly reason: string;
  readonly seconds: number;
}

/** How often one request is sent again after a 429; the longest wait is a minute (an enrolment window) and a second. */
const MAX_RETRIES = 5;
const LONGEST_WAIT_S = 61;

/** Sends; while the answer is 429, tells the wait, waits its Retry-After and sends again (at most 5 times). */
export async function sendWaitingOut429(send: () => Promise<Exchange>, tell: (seconds: number, reason: string) => void): Promise<Exchange> {
  let seen = await send();
  for (let attempt = 0; attempt < MAX_RETRIES && seen.outcome === 'response' && seen.status === 429; attempt++) {
    const seconds = retryAfterSeconds(seen.headers?.get('retry-after'));
    tell(seconds, reasonOf(seen));
    await sleep(seconds * 1000);
    seen = await send();
  }
  return seen;
}

/** Retry-After in whole seconds (1 when it is missing or not a number of seconds). */
function retryAfterSeconds(header: string | null | undefined): number {
  const wait = Number(header ?? 1);
  return Math.min(Number.isFinite(wait) && wait > 0 ? Math.ceil(wait) : 1, LONGEST_WAIT_S);
}

function reasonOf(seen: Exchange): string {
  const description = (seen.json as { description?: unknown } | undefined)?.description;
  return typeof description === 'string' && description !== '' ? description.split(':')[0]!.trim() : 'HTTP 429 Too Many Requests';
}

/** The line a person reads while the replay waits. */
export function describeWait(wait: ReplayWait): string {
  const hint = /enrol/i.test(wait.reason) ? ' (SANDBOX_ENROLL_LIMIT=0 on the server turns the enrolment limit off; it is off by default on a loopback address)' : '';
  return `replay: waiting ${wait.seconds} s (Retry-After) before ${wait.before} of ${wait.file}: the sandbox answered 429 "${wait.reason}"${hint}`;
}
