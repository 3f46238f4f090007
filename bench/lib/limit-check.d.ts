/** Types of limit-check.js (plain JavaScript, imported by the TypeScript tests). */
export const SLACK_MS: number;
export function mostSurelyWithinASecond(spans: Array<[number, number]>): number;
