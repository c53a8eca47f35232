import { createHash } from 'node:crypto';

/**
 * An ETag from what determines a response's content: the snapshot (immutable), the operation and
 * the normalized parameters. Profile A bodies also carry the request id, so their bytes differ on
 * every request: their tag is weak (RFC 9110 8.8.1), same data, page and snapshot. Profile B bodies
 * are byte-identical for the same tag, so theirs is strong.
 */
export function etagOf(parts: readonly unknown[], weak: boolean): string {
  const tag = `"${createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 32)}"`;
  return weak ? `W/${tag}` : tag;
}

/** If-None-Match (RFC 9110 13.1.2): `*`, or a list of tags compared weakly (W/ ignored). */
export function matchesIfNoneMatch(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  return value
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .includes(etag.replace(/^W\//, ''));
}
