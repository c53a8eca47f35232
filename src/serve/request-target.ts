/**
 * Why a request target is refused, or null: what the router would silently read some other way.
 * The router resolves the target to a route and access comes from that route; this only refuses
 * targets that HTTP itself forbids.
 */
export function requestTargetProblem(target: string): string | null {
  // Neither origin-form nor absolute-form has a fragment (RFC 9112 section 3.2); the router would
  // take `#` for the start of the query string.
  if (target.includes('#')) return 'the request target must not contain a fragment (#)';
  // The router drops an absolute-form authority whole; user information in it is an error
  // (RFC 9110 section 4.2.4), never credentials.
  if (ABSOLUTE_FORM_AUTHORITY.exec(target)?.[1]?.includes('@')) return 'the request target must not contain user information (user@)';
  return null;
}

/** scheme "://" authority, up to the path, query or fragment. */
const ABSOLUTE_FORM_AUTHORITY = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/;
