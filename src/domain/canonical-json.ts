/**
 * RFC 8785 canonical JSON (JCS) of a parsed JSON value, written once for every use: metadata in
 * the string to sign (every language writes it alike), the body an Idempotency-Key is compared
 * by, the enrolment a generated merchant name is drawn from. Keys sorted by UTF-16 code units
 * (sort()'s order) at every level, strings and numbers as JSON.stringify writes them.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
