import type { Profile } from './access/index.js';

export type { Profile };

/** Base paths of the two published interface profiles (docs/spec.md, API profiles). */
export const PROFILE_PREFIX: Readonly<Record<Profile, string>> = { A: '/v1', B: '/api/v1' };

/**
 * The envelope for an answer to a request that matched no route because it could not even be read
 * (see error-handler.ts and client-error.ts): the profile its path names, Profile A's otherwise.
 * It decides the shape of that error only: access is decided by the matched route (route-access.ts).
 */
export function profileNamedByPath(url: string): Profile {
  return hasPrefix(url, PROFILE_PREFIX.B) ? 'B' : 'A';
}

function hasPrefix(url: string, prefix: string): boolean {
  if (!url.startsWith(prefix)) return false;
  const next = url.charAt(prefix.length);
  return next === '' || next === '/' || next === '?';
}
