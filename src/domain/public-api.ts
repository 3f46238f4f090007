/**
 * The public API's two prefixes (SPEC 2): the documented `/openapi/v1` and the `/v1` alias one
 * sample of the interface shows. The app mounts the public routes on them; faults apply under
 * them and nowhere else; the readiness report takes calls under them as evidence.
 */
export const PUBLIC_PREFIXES = ['/openapi/v1', '/v1'] as const;

/** How a path of the public API starts: a prefix and the slash after it (`/v10/x` is not under `/v1`). */
export const PUBLIC_PATH_STARTS: readonly string[] = PUBLIC_PREFIXES.map((prefix) => `${prefix}/`);

/** True for a path under either public prefix. */
export function isPublicApiPath(path: string): boolean {
  return PUBLIC_PATH_STARTS.some((start) => path.startsWith(start));
}
