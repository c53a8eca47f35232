import { createHash } from 'node:crypto';

/**
 * A strong ETag from what determines a response's content: the snapshot (immutable), the
 * operation and the normalized parameters. Profile A bodies also carry the request id, which names
 * the request, not the representation, so it is left out on purpose: two requests with the same
 * ETag get the same data, page and snapshot.
 */
export function etagOf(parts: readonly unknown[]): string {
  return `"${createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 32)}"`;
}

/** If-None-Match (RFC 9110 13.1.2): `*`, or a list of tags compared weakly (W/ ignored). */
export function matchesIfNoneMatch(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  return value
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .includes(etag);
}
