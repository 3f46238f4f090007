/**
 * Whether a per-key limit held, judged from the client: the server stamps a request somewhere
 * between its sending and its answer, so requests whose whole span (first sent to last
 * answered) is under one second were surely let through within one second.
 */

/** Slack for reading two processes' wall clocks: a span counts as under a second only when shorter by this much. */
export const SLACK_MS = 5;

/**
 * The most requests of one key surely let through within one second.
 * @param {Array<[number, number]>} spans [sentAt, answeredAt] in wall-clock ms of each request let through
 */
export function mostSurelyWithinASecond(spans) {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  let most = 0;
  for (let i = 0; i < sorted.length; i++) {
    // Those sent from the i-th on and answered before its sending plus a second.
    const end = sorted[i][0] + 1000 - SLACK_MS;
    let n = 0;
    for (let j = i; j < sorted.length && sorted[j][0] < end; j++) if (sorted[j][1] < end) n++;
    most = Math.max(most, n);
  }
  return most;
}
