import { sha256Hex } from '../../lib/file-digest.js';
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API key secrets: `pds_live_<12 hex>_<32 base64url chars>`. The 12 hex characters are the
 * public part of the key id (`key_<12 hex>`), so a lookup needs no scan over all keys; the
 * 32 base64url characters are 24 bytes (192 bits) from the CSPRNG.
 *
 * Only SHA-256 of the whole secret is stored. A slow password hash (scrypt, bcrypt) protects
 * low-entropy human passwords against guessing; a 192-bit random secret cannot be guessed from
 * its SHA-256 whatever the hash speed, and a fast hash keeps authentication cheap on every request.
 */

const SECRET_PATTERN = /^pds_live_([0-9a-f]{12})_([A-Za-z0-9_-]{32})$/;
/** Longer than any secret we issue; checked before any work so an oversized header costs nothing. */
const MAX_PRESENTED_KEY_LENGTH = 128;

export interface NewKeySecret {
  id: string;
  secret: string;
  secretSha256: string;
}

export function generateKeySecret(): NewKeySecret {
  const idPart = randomBytes(6).toString('hex');
  const secret = `pds_live_${idPart}_${randomBytes(24).toString('base64url')}`;
  return { id: `key_${idPart}`, secret, secretSha256: sha256Hex(secret) };
}

/** The key id a presented secret claims, or null when it is not shaped like one of our keys. */
export function keyIdOfSecret(presented: string): string | null {
  if (presented.length > MAX_PRESENTED_KEY_LENGTH) return null;
  const match = SECRET_PATTERN.exec(presented);
  return match ? `key_${match[1]}` : null;
}

/**
 * Stands in for the stored hash of a key id that does not exist: a well-formed key with an unknown
 * id is compared against it, the same work as a wrong secret for an id that exists, so the time a
 * refusal takes does not say whether the id exists. Random per process: no secret matches it.
 */
const NO_SUCH_KEY_SHA256 = randomBytes(32).toString('hex');

/**
 * Compares in constant time (digests of equal length), so response timing leaks nothing of the
 * stored hash. `storedSha256` undefined (no key with the presented id): compared against a dummy
 * hash all the same, and false.
 */
export function secretMatches(presented: string, storedSha256: string | undefined): boolean {
  const expected = Buffer.from(storedSha256 ?? NO_SUCH_KEY_SHA256, 'hex');
  const actual = hash('sha256', presented, 'buffer');
  const equal = expected.length === actual.length && timingSafeEqual(expected, actual);
  return equal && storedSha256 !== undefined;
}
