import type { Profile } from './access/index.js';

export type { Profile };

/** Base paths of the two published interface profiles (service description, section 9). */
export const PROFILE_PREFIX: Readonly<Record<Profile, string>> = { A: '/v1', B: '/api/v1' };

/**
 * The profile a URL belongs to, from its path prefix; null for paths outside both (the server's
 * own 404s there use Profile A's envelope, the versioned description).
 */
export function profileOfUrl(url: string): Profile | null {
  if (hasPrefix(url, PROFILE_PREFIX.B)) return 'B';
  if (hasPrefix(url, PROFILE_PREFIX.A)) return 'A';
  return null;
}

function hasPrefix(url: string, prefix: string): boolean {
  if (!url.startsWith(prefix)) return false;
  const next = url.charAt(prefix.length);
  return next === '' || next === '/' || next === '?';
}
