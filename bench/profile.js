#!/usr/bin/env node
/**
 * Summarises a V8 .cpuprofile (from `npm run bench -- --profile`): where the CPU went, by
 * function (self and inclusive) and by package or source file. Idle time is left out.
 * Usage: node bench/profile.js <file.cpuprofile> [--top 25] [--under <function name>]
 *   --under: only samples whose stack holds that function (what a handler's time is made of).
 */
import { readFileSync } from 'node:fs';

const file = process.argv[2];
if (!file) {
  console.error('usage: node bench/profile.js <file.cpuprofile> [--top N]');
  process.exit(2);
}
const topIndex = process.argv.indexOf('--top');
const TOP = topIndex === -1 ? 25 : Number(process.argv[topIndex + 1]);
const underIndex = process.argv.indexOf('--under');
const UNDER = underIndex === -1 ? undefined : process.argv[underIndex + 1];
const profile = JSON.parse(readFileSync(file, 'utf8'));

const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

function where(url) {
  if (!url) return '(native)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.startsWith('node:')) return 'node internals';
  const src = /\/(dist|src|bench)\/(.+)$/.exec(url);
  return src ? `${src[1]}/${src[2]}` : url;
}

const keyOf = (n) => {
  const f = n.callFrame;
  return `${f.functionName || '(anonymous)'}  ${where(f.url)}${f.url ? `:${f.lineNumber + 1}` : ''}`;
};

function stackHolds(id, name) {
  for (let at = id; at !== undefined; at = parent.get(at)) if (nodes.get(at).callFrame.functionName === name) return true;
  return false;
}

const self = new Map();
const inclusive = new Map();
const byPlace = new Map();
let busy = 0;
let idle = 0;
const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);

for (let i = 0; i < profile.samples.length; i++) {
  const us = profile.timeDeltas[i + 1] ?? 0;
  const leaf = nodes.get(profile.samples[i]);
  const name = leaf.callFrame.functionName;
  if (name === '(idle)') {
    idle += us;
    continue;
  }
  if (UNDER !== undefined && !stackHolds(leaf.id, UNDER)) continue;
  busy += us;
  add(self, keyOf(leaf), us);
  add(byPlace, name === '(garbage collector)' ? '(garbage collector)' : name === '(program)' ? '(program)' : where(leaf.callFrame.url), us);
  const seen = new Set();
  for (let id = leaf.id; id !== undefined; id = parent.get(id)) {
    const key = keyOf(nodes.get(id));
    if (!seen.has(key)) {
      seen.add(key);
      add(inclusive, key, us);
    }
  }
}

const pct = (us) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
const print = (title, map, n) => {
  console.log(`\n${title}`);
  for (const [key, us] of [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`  ${pct(us)}  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`);
};

console.log(`${file}${UNDER ? `\nonly stacks holding ${UNDER}` : ''}\nbusy ${(busy / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s (percentages are of busy time)`);
print('self time by package or source file', byPlace, 20);
print(`self time, top ${TOP} functions`, self, TOP);
print(`inclusive time, top ${TOP} functions`, inclusive, TOP);
