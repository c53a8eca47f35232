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
}

/**
 * The keys a server trusts. Lookups may answer from a cache; each implementation documents how old
 * an answer can be (that bound is how long a revocation can take to reach a running server).
 */
export interface KeyDirectory {
  /** The key with this id, revoked or not; null when there is none. */
  keyById(id: string): Promise<KeyRecord | null>;
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
   * Atomically reads the key's counts, applies `admits` (limits.ts) with `limits`, and counts the
   * request as admitted (month and window) or refused (month's refused column only): two servers
   * sharing the ledger can never both admit the request after the limit.
   */
  admit(keyId: string, tier: TierName, month: string, windowStart: number, limits: AdmissionLimits): Promise<CountedAdmission>;
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

/** How long a Redis key lookup is reused: a revocation reaches every instance within this. */
export const DEFAULT_REDIS_KEY_CACHE_MS = 2000;
