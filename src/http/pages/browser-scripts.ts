/**
 * The browser modules the dashboard loads, as the build compiles them from pages/browser/ into
 * dist/browser/ (tsconfig.browser.json): read once, served from memory by name, nothing else.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Both src/http/pages (vitest) and dist/http/pages (npm start) sit three levels under the package root. */
export const BUILT_SCRIPTS = new URL('../../../dist/browser/', import.meta.url);

/** A module's file name as the page and its imports ask for it. */
const MODULE_NAME = /^[a-z][a-z0-9-]*\.js$/;

/** The compiled modules of `dir` by file name; empty when nothing is built yet. */
export function readBuiltModules(dir: URL): ReadonlyMap<string, string> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => MODULE_NAME.test(name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw err;
  }
  return new Map(names.map((name) => [name, readFileSync(new URL(name, dir), 'utf8')]));
}

let loaded: ReadonlyMap<string, string> | null = null;

/** The built modules, kept once the entry module is there; while it is missing, each call looks again, so a build fixes a running sandbox. */
export function builtModules(): ReadonlyMap<string, string> {
  if (loaded) return loaded;
  const modules = readBuiltModules(BUILT_SCRIPTS);
  if (modules.has('dashboard.js')) loaded = modules;
  return modules;
}
