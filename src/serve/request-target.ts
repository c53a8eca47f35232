/**
 * Why a request target is refused, or null: what the router would silently read some other way.
 * The router resolves the target to a route and access comes from that route; this only refuses
 * targets that HTTP itself forbids.
 */
export function requestTargetProblem(target: string): string | null {
  // Neither origin-form nor absolute-form has a fragment (RFC 9112 section 3.2); the router would
  // take `#` for the start of the query string.
  if (target.includes('#')) return 'the request target must not contain a fragment (#)';
  return null;
}
