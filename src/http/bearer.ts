/**
 * The token of an `Authorization: Bearer <token>` header, read as RFC 7235 says: the scheme's
 * name in any case (bearer, BEARER), then one or more spaces. One reader for the admin token and
 * the metrics token alike.
 */
const BEARER = /^bearer +(\S.*)$/i;

/** The token, or undefined when the header is missing or not of the Bearer scheme. */
export function bearerToken(header: string | undefined): string | undefined {
  return header === undefined ? undefined : BEARER.exec(header)?.[1];
}
