/**
 * The scripts the pages inline, as the build compiles them from pages/browser/ into dist/browser/
 * (tsconfig.browser.json): each is read once and kept.
 */
import { readFileSync } from 'node:fs';

/** Both src/http/pages (vitest) and dist/http/pages (npm start) sit three levels under the package root. */
export const BUILT_SCRIPTS = new URL('../../../dist/browser/', import.meta.url);

export type BrowserScript = 'dashboard';

/** The text of a compiled script, or null when it is not there (not built yet). */
export function readBuiltScript(file: URL): string | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  // Inlined in a <script> element, this would end the element early and show the rest as HTML.
  if (/<\/script/i.test(text)) throw new Error(`${file.pathname} contains "</script": it cannot be inlined in a page.`);
  return text;
}

const loaded = new Map<BrowserScript, string>();

/** The compiled script, kept once read; while it is missing, each call looks again, so a build fixes a running sandbox. */
export function builtScript(name: BrowserScript): string | null {
  const known = loaded.get(name);
  if (known !== undefined) return known;
  const text = readBuiltScript(new URL(`${name}.js`, BUILT_SCRIPTS));
  if (text !== null) loaded.set(name, text);
  return text;
}
