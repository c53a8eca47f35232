import { describe, expect, it } from 'vitest';
import { redactedUrl, resolveStateLocation, StateLocationError } from '../../../src/serve/access/state-location.js';

describe('state location', () => {
  it('is the files without --state and without PDSNAP_STATE, and when either says "file"', () => {
    expect(resolveStateLocation(undefined, {})).toEqual({ kind: 'file' });
    expect(resolveStateLocation('file', { PDSNAP_STATE: 'redis://cache:6379/0' })).toEqual({ kind: 'file' });
    expect(resolveStateLocation(undefined, { PDSNAP_STATE: 'file' })).toEqual({ kind: 'file' });
  });

  it('takes a Redis URL from --state, else from PDSNAP_STATE', () => {
    expect(resolveStateLocation('redis://cache:6379/2', {})).toEqual({ kind: 'redis', url: 'redis://cache:6379/2' });
    expect(resolveStateLocation(undefined, { PDSNAP_STATE: 'rediss://:pw@cache:6380/0' })).toEqual({
      kind: 'redis',
      url: 'rediss://:pw@cache:6380/0',
    });
  });

  it('refuses a password on the command line without repeating it, but accepts it from the environment', () => {
    expect(() => resolveStateLocation('redis://:s3cret-pw@cache:6379/0', {})).toThrow(StateLocationError);
    const error = (() => {
      try {
        resolveStateLocation('redis://admin:s3cret-pw@cache:6379/0', {});
        return null;
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error?.message).toContain('put the URL in PDSNAP_STATE');
    expect(error?.message).not.toContain('s3cret');
  });

  it('refuses what is not a Redis URL, naming where it came from', () => {
    expect(() => resolveStateLocation('postgres://db/0', {})).toThrow('--state: expected "file" or a redis:// or rediss:// URL');
    expect(() => resolveStateLocation(undefined, { PDSNAP_STATE: 'cache:6379' })).toThrow(/PDSNAP_STATE/);
    expect(() => resolveStateLocation(undefined, { PDSNAP_STATE: 'redis://:pw@cache:6379/zero' })).toThrow(
      'PDSNAP_STATE: redis://:***@cache:6379/zero: the path must be a database number',
    );
  });

  it('prints a URL only with its user and password masked', () => {
    expect(redactedUrl('redis://:s3cret@cache:6379/0')).toBe('redis://:***@cache:6379/0');
    expect(redactedUrl('redis://app:s3cret@cache:6379/0')).toBe('redis://***:***@cache:6379/0');
    expect(redactedUrl('redis://cache:6379/0')).toBe('redis://cache:6379/0');
  });

  it('treats a password in the query (?password=, which the Redis client reads) as one in the user part', () => {
    expect(redactedUrl('redis://cache:6379/2?password=s3cret&family=6')).toBe('redis://cache:6379/2?password=***&family=6');
    expect(redactedUrl('redis://cache:6379/2?username=app&password=s3cret')).toBe('redis://cache:6379/2?username=***&password=***');
    expect(() => resolveStateLocation('redis://cache:6379/2?password=s3cret', {})).toThrow('put the URL in PDSNAP_STATE');
    expect(resolveStateLocation(undefined, { PDSNAP_STATE: 'redis://cache:6379/2?password=s3cret' })).toEqual({
      kind: 'redis',
      url: 'redis://cache:6379/2?password=s3cret',
    });
  });
});
