/**
 * The JSONPath subset scenarios use: `$`, `.name`, `[index]`, `['quoted name']`.
 * The leading `$.` may be left out: `payee.id` is `$.payee.id`. On an array, `.0` is `[0]`
 * too, which YAML flow maps need (`{ errors.0.field: amount }`: a `[` would start a list).
 */

export type PathSegment = string | number;

export class PathSyntaxError extends Error {}

const NAME = /^[\w$-]+/;

export function parsePath(path: string): PathSegment[] {
  let rest = path.trim();
  if (rest.startsWith('$')) rest = rest.slice(1);
  else if (rest !== '' && !rest.startsWith('[')) rest = `.${rest}`;
  const segments: PathSegment[] = [];
  while (rest.length > 0) {
    if (rest.startsWith('.')) {
      const name = NAME.exec(rest.slice(1))?.[0];
      if (!name) throw new PathSyntaxError(`bad path ${JSON.stringify(path)}: expected a name after "." at ${JSON.stringify(rest)}`);
      segments.push(name);
      rest = rest.slice(1 + name.length);
      continue;
    }
    const index = /^\[(\d+)\]/.exec(rest);
    if (index) {
      segments.push(Number(index[1]));
      rest = rest.slice(index[0].length);
      continue;
    }
    const quoted = /^\[(['"])(.*?)\1\]/.exec(rest);
    if (quoted) {
      segments.push(quoted[2]!);
      rest = rest.slice(quoted[0].length);
      continue;
    }
    throw new PathSyntaxError(`bad path ${JSON.stringify(path)} at ${JSON.stringify(rest)}: use $.name, [0] or ['name']`);
  }
  return segments;
}

export function formatPath(segments: readonly PathSegment[]): string {
  return `$${segments.map((s) => (typeof s === 'number' ? `[${s}]` : NAME.test(s) && NAME.exec(s)![0] === s ? `.${s}` : `['${s}']`)).join('')}`;
}

/** The value at the path; `found` is false when any step of the path is missing. */
export function getPath(value: unknown, segments: readonly PathSegment[]): { found: boolean; value: unknown } {
  let current = value;
  for (const segment of segments) {
    const index = typeof segment === 'number' ? segment : Array.isArray(current) && /^\d+$/.test(segment) ? Number(segment) : undefined;
    if (index !== undefined) {
      if (!Array.isArray(current) || index >= current.length) return { found: false, value: undefined };
      current = current[index];
    } else {
      if (current === null || typeof current !== 'object' || Array.isArray(current) || !Object.hasOwn(current, segment)) {
        return { found: false, value: undefined };
      }
      current = (current as Record<string, unknown>)[segment];
    }
  }
  return { found: true, value: current };
}
