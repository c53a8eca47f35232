import type { KeyRecord, Scope } from './key-record.js';
import type { TierName, UsageCounts } from './limits.js';

/** One key's month: admitted (counted, billable) and refused (429, recorded but not billed) requests. */
export interface MonthlyUsageRow {
  keyId: string;
  /** Tier of the key's latest request this month, the tier its overage is billed at. */
  tier: TierName;
  requests: number;
  rejected: number;
}

export interface NewKeyInput {
  name: string;
  scopes: Scope[];
  tier: TierName;
}

/** What one admission did: whether it counted the request, and the counts it found before it. */
export interface CountedAdmission {
  admitted: boolean;
  before: UsageCounts;
  /**
   * Nothing was counted: the key record the request was authorized on is no longer the stored one
   * (revoked, replaced, its tier or scopes changed). The caller reads the key again and decides anew.
   */
  stale?: true;
}

/**
 * The keys a server trusts. Lookups may answer from a cache; each implementation documents how old
 * an answer can be (that bound is how long a revocation can take to reach a running server).
 */
export interface KeyDirectory {
  /** The key with this id, revoked or not; null when there is none. `fresh`: read from the store now, not from what was read before. */
  keyById(id: string, fresh?: boolean): Promise<KeyRecord | null>;
  list(): Promise<KeyRecord[]>;
  /** Adds a key and returns its secret, which exists nowhere else: the caller shows it once. */
  create(input: NewKeyInput, now: Date): Promise<{ record: KeyRecord; secret: string }>;
  /** Marks a key revoked; revoking twice keeps the first date. Throws KeyNotFoundError for an unknown id. */
  revoke(id: string, now: Date): Promise<{ record: KeyRecord; alreadyRevoked: boolean }>;
}

/**
 * Request counts per key: per UTC month (YYYY-MM) and per fixed 60-second window (its start in
 * Unix seconds). The ledger knows no clock: callers pass the month and window of their own `now`.
 */
export interface UsageLedger {
  /**
   * Atomically reads the key's counts, applies the admission rule of limits.ts (decideAdmission) with `limits`, and counts the
   * request as admitted (month and window) or refused (month's refused column only): two servers
   * sharing the ledger can never both admit the request after the limit. Given `authorizedOn`, the
   * key record the request was authorized on, a ledger that shares keys with other servers counts
   * only while that record is still the stored one, in the same atomic step, and answers `stale`
   * otherwise: a revocation made anywhere stops the next admission everywhere, whatever the caches.
   * `billed` false (a request refused for its scope): judged by the window alone, and when admitted
   * counted in the window only, never in the month's billable requests.
   */
  admit(
    keyId: string,
    tier: TierName,
    month: string,
    windowStart: number,
    limits: AdmissionLimits,
    authorizedOn?: KeyRecord,
    billed?: boolean,
  ): Promise<CountedAdmission>;
  counts(keyId: string, month: string, windowStart: number): Promise<UsageCounts>;
  /** Takes one admitted request back out of the month (never below 0); the window keeps it. */
  release(keyId: string, month: string): Promise<void>;
  monthlyUsage(month: string): Promise<MonthlyUsageRow[]>;
}

export interface AdmissionLimits {
  hardCapPerMonth: number;
  requestsPerMinute: number;
}

/** Keys and usage of one deployment, in files (one machine) or in Redis (several). */
export interface StateStore {
  readonly keys: KeyDirectory;
  readonly usage: UsageLedger;
  /** `file` or the Redis URL with its password redacted: safe to print. */
  readonly description: string;
  close(): Promise<void>;
}

/**
 * The shared store could not answer (Redis unreachable, timed out or refusing writes). Requests fail
 * closed on it: 503, never an admission that was not counted.
 */
export class StateUnavailableError extends Error {
  override readonly name = 'StateUnavailableError';
}

export class KeyNotFoundError extends Error {
  override readonly name = 'KeyNotFoundError';
}

/** A key record in Redis that is not a valid key (hand-edited): refused, and reported. */
export class KeyRecordError extends Error {
  override readonly name = 'KeyRecordError';
}

/**
 * How long a Redis lookup that found a key is reused to authenticate. Admission re-checks the record
 * in Redis on every request (see UsageLedger.admit), so a revocation stops admissions at once; this
 * bounds only how long a hand-edited scope can take to reach a 403 answer, which counts nothing.
 */
export const DEFAULT_REDIS_KEY_CACHE_MS = 60_000;
/** How long a Redis lookup that found no key is reused: a key created elsewhere works within this. */
export const REDIS_UNKNOWN_KEY_CACHE_MS = 2000;
