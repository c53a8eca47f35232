import { hash } from 'node:crypto';

/**
 * An ETag from what determines a response's content: the snapshot (immutable), the operation and
 * the normalized parameters. Profile A bodies also carry the request id, so their bytes differ on
 * every request: their tag is weak (RFC 9110 8.8.1), same data, page and snapshot. Profile B bodies
 * are byte-identical for the same tag, so theirs is strong.
 */
export function etagOf(parts: readonly unknown[], weak: boolean): string {
  // crypto.hash: one call, no Hash object per request (about half the time of createHash on short input).
  const tag = `"${hash('sha256', JSON.stringify(parts), 'base64url').slice(0, 32)}"`;
  return weak ? `W/${tag}` : tag;
}

/** Content codings the server may apply; a compressed answer's tag ends in `-<coding>`. */
export const TAGGED_ENCODINGS = ['br', 'gzip'] as const;
export type Encoding = (typeof TAGGED_ENCODINGS)[number];
const ENCODING_SUFFIX = new RegExp(`-(?:${TAGGED_ENCODINGS.join('|')})"$`);

/**
 * The tag of the same content under a content coding: another representation, so another tag
 * (RFC 9110 8.8.3), and weak, because compressor output is not promised byte for byte across
 * versions of the compression library.
 */
export function encodedTag(etag: string, encoding: string): string {
  return `W/${etag.replace(/^W\//, '').replace(/"$/, `-${encoding}"`)}`;
}

/** The tag without W/ and without an encoding suffix: what names the content itself. */
function contentPart(tag: string): string {
  return tag.trim().replace(/^W\//, '').replace(ENCODING_SUFFIX, '"');
}

/**
 * If-None-Match (RFC 9110 13.1.2), compared weakly: `*`, or a listed tag of the same content under
 * any encoding (the cache that sent it keyed its copy by Accept-Encoding, per `Vary`, so it gets the
 * same encoding again). Returns the tag to send with the 304 (the one the client holds), or null.
 */
export function matchingTag(header: string | string[] | undefined, etag: string): string | null {
  if (header === undefined) return null;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return etag;
  const content = contentPart(etag);
  return (
    value
      .split(',')
      .map((tag) => tag.trim())
      .find((tag) => tag !== '' && contentPart(tag) === content) ?? null
  );
}
