import type { DatasetName } from '../model/dataset.js';
import type { SourceKind } from './fetch-target.js';

export type FetchOutcome = 'fetched' | 'unchanged' | 'failed' | 'skipped';

/** One file of the run: what was asked for, where it went, and how it ended. */
export interface FetchedSource {
  kind: SourceKind;
  url: string;
  /** Relative to the sources root. */
  path: string;
  outcome: FetchOutcome;
  /** The last HTTP status received for it; null when no answer came (or none was asked for). */
  status: number | null;
  /** Size and digest of the copy on disk after the run (the last good one when the fetch failed), when known. */
  bytes: number | null;
  sha256: string | null;
  /** Why it failed or was skipped, or what the run noticed; null otherwise. */
  reason: string | null;
}

/** What `pdsnap fetch --json` prints: one object, whatever happened. */
export interface FetchReport {
  /** No source failed. */
  ok: boolean;
  now: string;
  sources: string;
  dryRun: boolean;
  datasets: DatasetName[];
  /** SEC EDGAR, when smart-money was fetched. */
  sec: {
    url: string;
    maxRps: number;
    filers: 'tracked' | 'all';
    /** The quarters whose form indexes were read, `2026 QTR4`. */
    quarters: string[];
    requests: number;
    /** The most requests started toward SEC within any one second. */
    highestRate: number;
    /** Time spent waiting because SEC asked for it, in ms. */
    waitedMs: number;
  } | null;
  /** HTTP requests made, redirects and retries included. */
  requests: number;
  highestSecRate: number;
  /** Bytes written (after content decoding). */
  bytes: number;
  counts: Record<FetchOutcome, number>;
  notes: string[];
  files: FetchedSource[];
}
