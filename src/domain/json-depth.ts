/** JSON nesting read off the text, before any parser sees it: deep nesting costs JSON.parse several times a flat body of the same size. */

/** Deeper JSON would overflow the stack of the recursive JSON writers (validation, signature, responses). */
export const MAX_JSON_DEPTH = 32;

const QUOTE = '"';
const [QUOTE_CODE, BACKSLASH, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY] = [0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d];

/**
 * Whether `text` nests deeper than `limit`, read before JSON.parse (so the text may not be JSON):
 * outside strings, each { or [ opens a level. No recursion and no allocation per node.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE_CODE) i = stringEnd(text, i);
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return false;
}

/** Where the string that opens at `start` closes: the next quote not escaped by an odd run of backslashes. */
function stringEnd(text: string, start: number): number {
  for (let end = text.indexOf(QUOTE, start + 1); end > 0; end = text.indexOf(QUOTE, end + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end;
  }
  return text.length;
}
