import { describe, expect, it } from 'vitest';
import { generateKeySecret, secretMatches } from '../../../src/serve/access/key-secret.js';

describe('secretMatches', () => {
  it('matches a secret to its own stored hash only, and refuses every secret for an id with no stored hash', () => {
    const key = generateKeySecret();
    const other = generateKeySecret();
    expect(secretMatches(key.secret, key.secretSha256)).toBe(true);
    expect(secretMatches(other.secret, key.secretSha256)).toBe(false);
    // No such key: compared against a hash of the process's own (the same work), and refused.
    expect(secretMatches(key.secret, undefined)).toBe(false);
    expect(secretMatches('', undefined)).toBe(false);
  });
});
