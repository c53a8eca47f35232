import { presentedCredential, type RequestHeaders } from './credentials.js';
import { FileState, type FileStateOptions } from './file-state.js';
import { SERVE_USAGE_WAITS } from './usage-store.js';
import type { KeyRecord, Scope } from './key-record.js';
import { keyIdOfSecret, secretMatches } from './key-secret.js';
import { limitHeaders, type Profile } from './limit-headers.js';
import { decideAdmission, type LimitCode, TIERS, type TierName } from './limits.js';
import { KeyRecordError, type StateStore, StateUnavailableError } from './state-store.js';
import { utcMonth, windowStartSeconds } from './utc-windows.js';

export type { Profile } from './limit-headers.js';
export type { Scope } from './key-record.js';
export type { TierName } from './limits.js';
export { SCOPES } from './key-record.js';
export { TIERS } from './limits.js';
export { DEFAULT_KEY_FILE_MAX_AGE_MS, DEFAULT_KEYS_FILE } from './key-store.js';
export type { StateStore } from './state-store.js';
export { DEFAULT_REDIS_KEY_CACHE_MS, StateUnavailableError } from './state-store.js';
export { DEFAULT_USAGE_DB } from './usage-store.js';

/** What a handler may know of the caller's key: never the secret, never its hash. */
export interface AuthenticatedKey {
  id: string;
  name: string;
  tier: TierName;
  scopes: Scope[];
}

export type AuthErrorCode = 'invalid_api_key' | 'insufficient_scope' | 'unauthorized' | 'invalid_key';

/**
 * The key and usage store could not be asked (Redis down): 503 with the code both profiles already
 * publish for a failure of the server, `internal_error`. Nothing was counted, nothing is served.
 */
export interface StateUnavailableOutcome {
  status: 503;
  code: 'internal_error';
  message: string;
  headers: Record<string, string>;
}

export type AuthOutcome =
  | { ok: true; key: AuthenticatedKey }
  | {
      ok: false;
      status: 401 | 403;
      code: AuthErrorCode;
      message: string;
      /** Rate-limit headers for this error response (see headersForUnauthenticated; a 403 gets its key's own). */
      headers: Record<string, string>;
    }
  | ({ ok: false } & StateUnavailableOutcome);

export type Admission =
  | { allowed: true; headers: Record<string, string> /** UTC month (YYYY-MM) it was counted in. */; month: string }
  | { allowed: false; status: 429; code: LimitCode; message: string; headers: Record<string, string> }
  | ({ allowed: false } & StateUnavailableOutcome);

type AuthFailure = Exclude<AuthOutcome, { ok: true }>;

/** authenticate and admit in one: the key when it was authenticated (for the log), and the answer. */
export type Authorization =
  | { ok: true; key: AuthenticatedKey; headers: Record<string, string> /** UTC month it was counted in. */; month: string }
  | {
      ok: false;
      status: 401 | 403 | 429 | 503;
      code: AuthErrorCode | LimitCode | 'internal_error';
      message: string;
      headers: Record<string, string>;
      /** Null when no key was authenticated (a 401 is then a failed attempt of the caller's address). */
      key: AuthenticatedKey | null;
    };

/**
 * Authentication and admission of API requests over a state store (files or Redis). Every method
 * that may ask the store returns a promise; when the store cannot answer, the outcome is a 503
 * (never an exception, never an admission that was not counted).
 */
export interface Access {
  /**
   * Profile A: Bearer only; missing/invalid/revoked → 401 invalid_api_key; lacking `requiredScope`
   * → 403 insufficient_scope. Profile B: Bearer or X-API-Key; missing → 401 unauthorized, wrong or
   * revoked → 401 invalid_key. Scopes are a grant, so they hold on B too: a key without the
   * dataset's scope gets 403 insufficient_scope in B's envelope (B's table lists no 403, but
   * ignoring the grant would let a key read data it was never given). Counts nothing: call `admit`.
   */
  authenticate(profile: Profile, headers: RequestHeaders, requiredScope?: Scope): Promise<AuthOutcome>;
  /** Hard cap, then per-minute window; an admitted request is counted. Headers go on the response whatever its final status. */
  admit(profile: Profile, keyId: string, tier: TierName): Promise<Admission>;
  /**
   * authenticate, then admit, as the request path does it: the admission counts only while the key
   * record the request was authenticated on is still the stored one (UsageLedger.admit). When it
   * changed in between (revoked through another server), the key is read again and the request
   * decided anew, so a revocation made anywhere refuses the next request everywhere. A key that
   * lacks `requiredScope` is admitted to its per-minute window only (never billed) and answered
   * 403, or 429 once the window is full: no authenticated request is free of every limit.
   */
  authorize(profile: Profile, headers: RequestHeaders, requiredScope?: Scope): Promise<Authorization>;
  /**
   * Takes an admitted request back out of its month's billable count: for answers that are the
   * server's fault (5xx), which a client should not pay for. The per-minute window keeps it, so
   * retries of a failing request are still rate limited. Never rejects: a store that cannot be
   * reached at this point is reported, and the request stays counted.
   */
  release(keyId: string, month: string): Promise<void>;
  /** Headers for a response to a request without a usable key: the member tier's limits, nothing consumed. */
  headersForUnauthenticated(profile: Profile): Record<string, string>;
  close(): Promise<void>;
}

export type AccessOptions = {
  now: () => Date;
  /** Called when a changed keys file (or a key record in Redis) cannot be read; it is not used. */
  onKeysReloadError?: (error: Error) => void;
  /** Called when the state store fails a request (at most once every 10 s while it keeps failing). */
  onStateError?: (error: Error) => void;
} & ({ store: StateStore } | FileStateOptions);

/** What admitOn answers when the key record changed since the request was authenticated. */
const STALE = Symbol('stale');
/** A request whose key record changes under it more often than this gets a 503. */
const MAX_AUTHORIZE_ATTEMPTS = 3;

/** Whether a key's scopes grant `requiredScope` (none required: yes). */
function inScope(record: KeyRecord, requiredScope: Scope | undefined): boolean {
  return requiredScope === undefined || record.scopes.includes(requiredScope);
}

/** What a handler may know of a key record. */
function authenticatedKey(record: KeyRecord): AuthenticatedKey {
  return { id: record.id, name: record.name, tier: record.tier, scopes: [...record.scopes] };
}

const UNAVAILABLE_MESSAGE = 'The service cannot check API keys and limits right now; nothing was counted. Retry shortly';
const STATE_ERROR_REPORT_INTERVAL_MS = 10_000;

/** Opens the files when no store is given (throws KeyFileError on an unusable keys file). */
export function createAccess(options: AccessOptions): Access {
  // A server waits for a lock with its whole event loop: briefly, then fails fast for a while.
  const store = 'store' in options ? options.store : FileState.open({ usageWaits: SERVE_USAGE_WAITS, ...options });
  const { keys, usage } = store;
  const { now } = options;

  let lastReportAt = -Infinity;
  const reportStateError = (error: Error) => {
    const at = performance.now();
    if (at - lastReportAt < STATE_ERROR_REPORT_INTERVAL_MS) return;
    lastReportAt = at;
    options.onStateError?.(error);
  };

  const headersForUnauthenticated = (profile: Profile) => limitHeaders(profile, 'member', { month: 0, window: 0 }, now());

  /** The counts cannot be read: the tier's limits with nothing consumed, and when to come back. */
  const unavailable = (profile: Profile, error: unknown, tier: TierName = 'member'): StateUnavailableOutcome => {
    if (!(error instanceof StateUnavailableError)) throw error;
    reportStateError(error);
    return {
      status: 503,
      code: 'internal_error',
      message: UNAVAILABLE_MESSAGE,
      headers: limitHeaders(profile, tier, { month: 0, window: 0 }, now(), 1),
    };
  };

  const refuse = (profile: Profile, code: AuthErrorCode, message: string): AuthFailure => ({
    ok: false,
    status: 401,
    code,
    message,
    headers: headersForUnauthenticated(profile),
  });

  const lookUp = async (id: string, fresh: boolean): Promise<KeyRecord | null> => {
    try {
      return await keys.keyById(id, fresh);
    } catch (error) {
      if (!(error instanceof KeyRecordError)) throw error;
      options.onKeysReloadError?.(error);
      return null;
    }
  };

  /** The key a request presents, with its record (which never leaves this module), or why it is refused (401, 503). */
  const authenticateRecord = async (
    profile: Profile,
    headers: RequestHeaders,
    fresh: boolean,
  ): Promise<{ ok: true; record: KeyRecord } | AuthFailure> => {
    const invalid: AuthErrorCode = profile === 'A' ? 'invalid_api_key' : 'invalid_key';
    const credential = presentedCredential(profile, headers);
    if (credential.kind === 'missing') return refuse(profile, profile === 'A' ? 'invalid_api_key' : 'unauthorized', credential.message);
    if (credential.kind === 'unusable') return refuse(profile, invalid, credential.message);
    const id = keyIdOfSecret(credential.key);
    if (id === null) return refuse(profile, invalid, 'Invalid API key');
    let record: KeyRecord | null;
    try {
      record = await lookUp(id, fresh);
    } catch (error) {
      return { ok: false, ...unavailable(profile, error) };
    }
    // An unknown id is compared too (against a dummy hash): a refusal takes the same time either way.
    if (!secretMatches(credential.key, record?.secretSha256) || !record) return refuse(profile, invalid, 'Invalid API key');
    // Only the holder of the full secret gets this far, so saying "revoked" tells an attacker nothing.
    if (record.revokedAt !== null) return refuse(profile, invalid, 'API key has been revoked');
    return { ok: true, record };
  };

  /**
   * authenticateRecord, where a key that lacks the scope is decided on the stored record: answered
   * from a cache, it could be a key revoked (401) or given the scope since.
   */
  const authenticateForScope = async (profile: Profile, headers: RequestHeaders, requiredScope: Scope | undefined, fresh: boolean) => {
    const outcome = await authenticateRecord(profile, headers, fresh);
    if (fresh || !outcome.ok || inScope(outcome.record, requiredScope)) return outcome;
    return authenticateRecord(profile, headers, true);
  };

  const scopeRefusal = (requiredScope: Scope | undefined) => ({
    ok: false as const,
    status: 403 as const,
    code: 'insufficient_scope' as const,
    message: `API key lacks the scope ${requiredScope}`,
  });

  /**
   * admit; given the record the request was authorized on, STALE when that record changed meanwhile.
   * `billed` false: a request refused for its scope, counted in the window only (limits.ts).
   */
  const admitOn = async (
    profile: Profile,
    keyId: string,
    tier: TierName,
    authorizedOn?: KeyRecord,
    billed = true,
  ): Promise<Admission | typeof STALE> => {
    const at = now();
    const month = utcMonth(at);
    let counted;
    try {
      counted = await usage.admit(keyId, tier, month, windowStartSeconds(at), TIERS[tier], authorizedOn, billed);
    } catch (error) {
      return { allowed: false, ...unavailable(profile, error, tier) };
    }
    if (counted.stale) return STALE;
    const decision = decideAdmission(tier, counted.before, at, billed);
    if (decision.allowed !== counted.admitted) {
      throw new Error(`the ${store.description} state store and the limits disagree on a request of ${keyId}`);
    }
    if (decision.allowed) return { allowed: true, headers: limitHeaders(profile, tier, decision.counts, at), month };
    return {
      allowed: false,
      status: 429,
      code: decision.code,
      message: decision.message,
      headers: limitHeaders(profile, tier, decision.counts, at, decision.retryAfterSeconds),
    };
  };

  return {
    async authenticate(profile, headers, requiredScope) {
      const outcome = await authenticateForScope(profile, headers, requiredScope, false);
      if (!outcome.ok) return outcome;
      if (inScope(outcome.record, requiredScope)) return { ok: true, key: authenticatedKey(outcome.record) };
      // Counts nothing: the key's own headers, as they stand.
      const { record } = outcome;
      const at = now();
      let counts;
      try {
        counts = await usage.counts(record.id, utcMonth(at), windowStartSeconds(at));
      } catch (error) {
        return { ok: false, ...unavailable(profile, error, record.tier) };
      }
      return { ...scopeRefusal(requiredScope), headers: limitHeaders(profile, record.tier, counts, at) };
    },

    async admit(profile, keyId, tier) {
      const admission = await admitOn(profile, keyId, tier);
      if (admission === STALE) throw new Error('an admission without a key record cannot be stale');
      return admission;
    },

    async authorize(profile, headers, requiredScope) {
      for (let attempt = 0; attempt < MAX_AUTHORIZE_ATTEMPTS; attempt++) {
        // After a stale admission the cached record is known to be old: read the key from the store.
        const outcome = await authenticateForScope(profile, headers, requiredScope, attempt > 0);
        if (!outcome.ok) return { ...outcome, key: null };
        const key = authenticatedKey(outcome.record);
        // A request outside the key's scopes is not billed, but it is not free of every limit: it
        // takes its place in the key's per-minute window, and past it is answered 429 like any other.
        const billed = inScope(outcome.record, requiredScope);
        const admission = await admitOn(profile, key.id, key.tier, outcome.record, billed);
        if (admission === STALE) continue;
        if (!admission.allowed) {
          return { ok: false, status: admission.status, code: admission.code, message: admission.message, headers: admission.headers, key };
        }
        if (!billed) return { ...scopeRefusal(requiredScope), headers: admission.headers, key };
        return { ok: true, key, headers: admission.headers, month: admission.month };
      }
      const error = new StateUnavailableError(`the key record changed ${MAX_AUTHORIZE_ATTEMPTS} times while one request was admitted`);
      return { ok: false, ...unavailable(profile, error), key: null };
    },

    async release(keyId, month) {
      try {
        await usage.release(keyId, month);
      } catch (error) {
        if (!(error instanceof StateUnavailableError)) throw error;
        reportStateError(error);
      }
    },

    headersForUnauthenticated,

    close() {
      return store.close();
    },
  };
}
