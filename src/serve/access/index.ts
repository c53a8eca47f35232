import { type KeyRecord, type Scope } from './key-record.js';
import { KeyStore } from './key-store.js';
import { presentedCredential, type RequestHeaders } from './credentials.js';
import { limitHeaders, type Profile } from './limit-headers.js';
import { decideAdmission, type LimitCode, type TierName } from './limits.js';
import { UsageStore } from './usage-store.js';
import { utcMonth, windowStartSeconds } from './utc-windows.js';

export type { Profile } from './limit-headers.js';
export type { Scope } from './key-record.js';
export type { TierName } from './limits.js';
export { SCOPES } from './key-record.js';
export { TIERS } from './limits.js';
export { DEFAULT_KEYS_FILE } from './key-store.js';
export { DEFAULT_USAGE_DB } from './usage-store.js';

/** What a handler may know of the caller's key: never the secret, never its hash. */
export interface AuthenticatedKey {
  id: string;
  name: string;
  tier: TierName;
  scopes: Scope[];
}

export type AuthErrorCode = 'invalid_api_key' | 'insufficient_scope' | 'unauthorized' | 'invalid_key';

export type AuthOutcome =
  | { ok: true; key: AuthenticatedKey }
  | {
      ok: false;
      status: 401 | 403;
      code: AuthErrorCode;
      message: string;
      /** Rate-limit headers for this error response (see headersForUnauthenticated; a 403 gets its key's own). */
      headers: Record<string, string>;
    };

export type Admission =
  | { allowed: true; headers: Record<string, string>; /** UTC month (YYYY-MM) it was counted in. */ month: string }
  | { allowed: false; status: 429; code: LimitCode; message: string; headers: Record<string, string> };

export interface Access {
  /**
   * Profile A: Bearer only; missing/invalid/revoked → 401 invalid_api_key; lacking `requiredScope`
   * → 403 insufficient_scope. Profile B: Bearer or X-API-Key; missing → 401 unauthorized, wrong or
   * revoked → 401 invalid_key. Scopes are a grant, so they hold on B too: a key without the
   * dataset's scope gets 403 insufficient_scope in B's envelope (B's table lists no 403, but
   * ignoring the grant would let a key read data it was never given). Counts nothing: call `admit`.
   */
  authenticate(profile: Profile, headers: RequestHeaders, requiredScope?: Scope): AuthOutcome;
  /** Hard cap, then per-minute window; an admitted request is counted. Headers go on the response whatever its final status. */
  admit(profile: Profile, keyId: string, tier: TierName): Admission;
  /**
   * Takes an admitted request back out of its month's billable count: for answers that are the
   * server's fault (5xx), which a client should not pay for. The per-minute window keeps it, so
   * retries of a failing request are still rate limited.
   */
  release(keyId: string, month: string): void;
  /** Headers for a response to a request without a usable key: the member tier's limits, nothing consumed. */
  headersForUnauthenticated(profile: Profile): Record<string, string>;
  close(): void;
}

export interface AccessOptions {
  keysFile: string;
  usageDbFile: string;
  now: () => Date;
  /** Called when a changed keys file cannot be read; the last good keys stay in force. */
  onKeysReloadError?: (error: Error) => void;
}

/** Opens the keys file and the usage database; throws KeyFileError on an unusable keys file. */
export function createAccess(options: AccessOptions): Access {
  const keys = new KeyStore(options.keysFile, options.onKeysReloadError);
  const usage = UsageStore.open(options.usageDbFile);
  const { now } = options;

  /** Headers of a known key without counting anything (a 403 response). */
  const headersOfKey = (profile: Profile, key: KeyRecord): Record<string, string> => {
    const at = now();
    return limitHeaders(profile, key.tier, usage.counts(key.id, utcMonth(at), windowStartSeconds(at)), at);
  };

  const headersForUnauthenticated = (profile: Profile) => limitHeaders(profile, 'member', { month: 0, window: 0 }, now());

  return {
    authenticate(profile, headers, requiredScope) {
      const fail = (status: 401 | 403, code: AuthErrorCode, message: string, key?: KeyRecord): AuthOutcome => ({
        ok: false,
        status,
        code,
        message,
        headers: key ? headersOfKey(profile, key) : headersForUnauthenticated(profile),
      });
      const invalid: AuthErrorCode = profile === 'A' ? 'invalid_api_key' : 'invalid_key';

      const credential = presentedCredential(profile, headers);
      if (credential.kind === 'missing') return fail(401, profile === 'A' ? 'invalid_api_key' : 'unauthorized', credential.message);
      if (credential.kind === 'unusable') return fail(401, invalid, credential.message);
      const record = keys.find(credential.key);
      if (!record) return fail(401, invalid, 'Invalid API key');
      // Only the holder of the full secret gets this far, so saying "revoked" tells an attacker nothing.
      if (record.revokedAt !== null) return fail(401, invalid, 'API key has been revoked');
      if (requiredScope !== undefined && !record.scopes.includes(requiredScope)) {
        return fail(403, 'insufficient_scope', `API key lacks the scope ${requiredScope}`, record);
      }
      return { ok: true, key: { id: record.id, name: record.name, tier: record.tier, scopes: [...record.scopes] } };
    },

    admit(profile, keyId, tier) {
      const at = now();
      const month = utcMonth(at);
      const windowStart = windowStartSeconds(at);
      return usage.inTransaction((): Admission => {
        const decision = decideAdmission(tier, usage.counts(keyId, month, windowStart), at);
        if (decision.allowed) {
          usage.recordAdmitted(keyId, tier, month, windowStart);
          return { allowed: true, headers: limitHeaders(profile, tier, decision.counts, at), month };
        }
        usage.recordRejected(keyId, tier, month);
        return {
          allowed: false,
          status: 429,
          code: decision.code,
          message: decision.message,
          headers: limitHeaders(profile, tier, decision.counts, at, decision.retryAfterSeconds),
        };
      });
    },

    release(keyId, month) {
      usage.releaseAdmitted(keyId, month);
    },

    headersForUnauthenticated,

    close() {
      usage.close();
    },
  };
}
