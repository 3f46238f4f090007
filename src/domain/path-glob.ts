/**
 * Fault-rule path globs, compiled once and matched in time linear in the path: `*` matches any
 * run of characters, `/` included, but no line break (as `.*` did when globs were RegExps);
 * everything else is literal, and the glob covers the whole path, case kept.
 *
 * Why not a RegExp, nor the usual star-backtracking loop: the RegExp took time exponential in the
 * stars, the loop (path length × glob length) steps; with 50 rules of 256 characters against a long
 * path either blocked the event loop for every merchant. Here each line of the glob (stars cannot
 * cross a line break) is a literal head, a literal tail and literal pieces between stars; each
 * piece is found at its first place left to right (Knuth-Morris-Pratt, no step taken back), which
 * is a match whenever one exists, so a path costs at most about three steps per character.
 */

export interface CompiledGlob {
  /** True when `path` matches; `steps`, when given, counts the characters examined. */
  matches(path: string, steps?: { count: number }): boolean;
}

/** One line of a glob: the literal text when it has no star, else its head, pieces and tail. */
interface GlobLine {
  readonly exact: string | null;
  readonly head: string;
  readonly pieces: readonly Piece[];
  readonly tail: string;
}

/** A literal piece between two stars: its characters and failure table (the longest border of each prefix). */
interface Piece {
  readonly codes: Uint16Array;
  readonly failure: Int32Array;
}

const STAR = '*';
const LINE_BREAK = /[\n\r\u2028\u2029]/;

/** The last path looked at: a request's path is matched against each of a merchant's rules in turn. */
let lastPath: string | undefined;
let lastPathHasBreak = false;

function hasLineBreak(path: string): boolean {
  if (path !== lastPath) [lastPath, lastPathHasBreak] = [path, LINE_BREAK.test(path)];
  return lastPathHasBreak;
}

/** What `.` of a RegExp does not match. */
function isLineBreak(c: number): boolean {
  return c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;
}

export function compileGlob(glob: string): CompiledGlob {
  const lines: GlobLine[] = [];
  const breaks: number[] = [];
  let start = 0;
  for (let i = 0; i <= glob.length; i++) {
    if (i < glob.length && !isLineBreak(glob.charCodeAt(i))) continue;
    lines.push(compileLine(glob.slice(start, i)));
    if (i < glob.length) breaks.push(glob.charCodeAt(i));
    start = i + 1;
  }
  const [only] = lines;
  // Rule globs have no line break (the API refuses them): one native test replaces the scan.
  if (lines.length === 1) {
    return {
      matches(path, steps) {
        const counter = { count: path.length };
        const matches = !hasLineBreak(path) && lineMatches(only!, path, 0, path.length, counter);
        if (steps) steps.count += counter.count;
        return matches;
      },
    };
  }
  return {
    matches(path, steps) {
      const counter = { count: 0 };
      let from = 0;
      let matches = true;
      for (let i = 0; i < lines.length && matches; i++) {
        let end = from;
        while (end < path.length && !isLineBreak(path.charCodeAt(end))) end++;
        counter.count += end - from + 1;
        const last = i === lines.length - 1;
        // Every line break of the path must be one of the glob's, in the same place of the order.
        matches = last ? end === path.length : end < path.length && path.charCodeAt(end) === breaks[i];
        matches &&= lineMatches(lines[i]!, path, from, end, counter);
        from = end + 1;
      }
      if (steps) steps.count += counter.count;
      return matches;
    },
  };
}

function compileLine(line: string): GlobLine {
  const parts = line.split(STAR);
  if (parts.length === 1) return { exact: line, head: '', pieces: [], tail: '' };
  const pieces = parts
    .slice(1, -1)
    .filter((text) => text.length > 0)
    .map((text) => {
      const codes = Uint16Array.from(text, (_, i) => text.charCodeAt(i));
      return { codes, failure: failureTable(codes) };
    });
  return { exact: null, head: parts[0]!, pieces, tail: parts[parts.length - 1]! };
}

function failureTable(codes: Uint16Array): Int32Array {
  const failure = new Int32Array(codes.length);
  for (let i = 1, k = 0; i < codes.length; i++) {
    while (k > 0 && codes[i] !== codes[k]) k = failure[k - 1]!;
    if (codes[i] === codes[k]) k++;
    failure[i] = k;
  }
  return failure;
}

/** True when path[from, end), a run without line breaks, matches the glob line. */
function lineMatches(line: GlobLine, path: string, from: number, end: number, counter: { count: number }): boolean {
  if (line.exact !== null) {
    counter.count += line.exact.length;
    return end - from === line.exact.length && path.startsWith(line.exact, from);
  }
  const { head, tail } = line;
  counter.count += head.length + tail.length;
  if (end - from < head.length + tail.length || !path.startsWith(head, from) || !path.endsWith(tail, end)) return false;
  let at = from + head.length;
  const limit = end - tail.length;
  for (const piece of line.pieces) {
    const found = indexOfPiece(piece, path, at, limit, counter);
    if (found < 0) return false;
    at = found + piece.codes.length;
  }
  return true;
}

/** Where `piece` first lies wholly within path[from, to), or -1: Knuth-Morris-Pratt, at most 2 × (to - from) steps. */
function indexOfPiece(piece: Piece, path: string, from: number, to: number, counter: { count: number }): number {
  const { codes, failure } = piece;
  const length = codes.length;
  let k = 0;
  let steps = 0;
  let found = -1;
  for (let i = from; i < to; i++) {
    const c = path.charCodeAt(i);
    while (k > 0 && codes[k] !== c) {
      k = failure[k - 1]!;
      steps++;
    }
    if (codes[k] === c) k++;
    if (k === length) {
      found = i - length + 1;
      steps += i - from + 1;
      break;
    }
  }
  counter.count += found < 0 ? steps + to - from : steps;
  return found;
}

/** Globs compiled so far; bounded, and a glob dropped from it is compiled again (in linear time) when next used. */
const compiled = new Map<string, CompiledGlob>();
const COMPILED_KEPT = 4096;

/** The compiled glob, compiled once per text (a rule's glob at its creation, or at its first use after a restart). */
export function compiledGlob(glob: string): CompiledGlob {
  let found = compiled.get(glob);
  if (found === undefined) {
    found = compileGlob(glob);
    if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value!);
    compiled.set(glob, found);
  }
  return found;
}

/** True when `path` matches `glob` (see the head of this file); `steps` counts the work. */
export function globMatches(glob: string, path: string, steps?: { count: number }): boolean {
  return compiledGlob(glob).matches(path, steps);
}

/** True when some path matches both globs: a star of either may take any run of the other's characters. At most (a + 1) x (b + 1) steps. */
export function globsOverlap(a: string, b: string): boolean {
  const width = b.length + 1;
  // 0 not known, 1 overlap, 2 none; filled from the ends back, so each cell reads cells already filled.
  const known = new Uint8Array((a.length + 1) * width);
  for (let i = a.length; i >= 0; i--) {
    for (let j = b.length; j >= 0; j--) {
      const at = (x: number, y: number) => known[x * width + y] === 1;
      let overlap: boolean;
      if (i < a.length && a.charCodeAt(i) === 0x2a) overlap = at(i + 1, j) || (j < b.length && at(i, j + 1));
      else if (j < b.length && b.charCodeAt(j) === 0x2a) overlap = at(i, j + 1) || (i < a.length && at(i + 1, j));
      else if (i === a.length || j === b.length) overlap = i === a.length && j === b.length;
      else overlap = a[i] === b[j] && at(i + 1, j + 1);
      known[i * width + j] = overlap ? 1 : 2;
    }
  }
  return known[0] === 1;
}
