import type { Profile } from './limit-headers.js';

export type RequestHeaders = Record<string, string | string[] | undefined>;

/** What a request offers as its API key, before any lookup. */
export type PresentedCredential =
  | { kind: 'missing'; message: string }
  | { kind: 'unusable'; message: string }
  | { kind: 'key'; key: string };

/**
 * Finds the key a request presents. Profile A: `Authorization: Bearer <key>` only. Profile B:
 * the same, or `X-API-Key: <key>`; when both are sent they must agree, since honouring one and
 * ignoring the other would hide a client's mistake. A repeated header is unusable, not guessed at.
 */
export function presentedCredential(profile: Profile, headers: RequestHeaders): PresentedCredential {
  const authorization = headerValue(headers, 'authorization');
  const apiKey = profile === 'B' ? headerValue(headers, 'x-api-key') : undefined;
  if (authorization === null || apiKey === null) return { kind: 'unusable', message: 'API key header sent more than once' };

  let bearer: string | undefined;
  if (authorization !== undefined) {
    const match = /^Bearer +(\S+) *$/i.exec(authorization);
    if (!match?.[1]) return { kind: 'unusable', message: 'Authorization header must be "Bearer <API_KEY>"' };
    bearer = match[1];
  }
  const key = apiKey?.trim();
  if (bearer !== undefined && key) {
    return bearer === key ? { kind: 'key', key } : { kind: 'unusable', message: 'Authorization and X-API-Key carry different keys' };
  }
  if (bearer !== undefined) return { kind: 'key', key: bearer };
  if (key) return { kind: 'key', key };
  return {
    kind: 'missing',
    message:
      profile === 'A'
        ? 'Missing API key: send Authorization: Bearer <API_KEY>'
        : 'Missing API key: send Authorization: Bearer <API_KEY> or X-API-Key',
  };
}

/**
 * undefined when absent or empty, null when repeated. Node lower-cases names; a plain record may not.
 * An empty line counts as one: a client sending the header twice is confused about its key, whatever
 * one of the lines holds.
 */
function headerValue(headers: RequestHeaders, lowerName: string): string | undefined | null {
  const values: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== lowerName || value === undefined) continue;
    values.push(...(Array.isArray(value) ? value : [value]));
  }
  if (values.length > 1) return null;
  return values[0]?.trim() || undefined;
}
