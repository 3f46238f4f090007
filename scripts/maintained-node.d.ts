/** Types of maintained-node.js (plain JavaScript, so it runs on the old Node it replaces), imported by its test. */
export function maintainedLines(engines: string): Array<[number, number, number]>;
export function decide(version: string, engines: string): { why: string; major: number } | null;
export function nodePackage(platform: string, arch: string): string;
