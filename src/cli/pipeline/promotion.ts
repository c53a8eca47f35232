import type { DatasetName } from '../../model/dataset.js';
import type { FreshnessFacts } from '../../model/freshness.js';
import type { DriftAcceptance } from '../../model/manifest.js';
import type { RuleResult } from '../../model/rule-result.js';
import { type NewerCurrent, newerCurrent } from '../../publish/current-order.js';
import type { SnapshotStore } from '../../publish/snapshot-store.js';
import { InvalidPointerError } from '../../publish/store-errors.js';
import type { DatasetDriftThresholds } from '../../validate/drift.js';
import { evaluateFreshness } from '../../validate/freshness.js';
import type { FreshnessLimits } from '../../validate/limits.js';
import { checkDrift, currentBaseline, type DriftCheck, type DriftSide } from './drift.js';

/**
 * Whether a candidate may become current, judged once for `build` (a staged bundle) and `promote`
 * (a published candidate): it must be fresh, it must not move current back in time (only rollback
 * does that: current-order.ts), and it must not drift too far from the current snapshot unless the
 * drift is accepted, which is then recorded (acceptanceOf). Nothing here changes the store.
 */

export interface Candidate {
  dataset: DatasetName;
  /** The bundle's files, where drift reads them. */
  side: DriftSide;
  facts: FreshnessFacts;
  /** The snapshot id when the candidate is already published (promote); null for a staged build. */
  publishedId: string | null;
}

export interface JudgeSettings {
  now: Date;
  limits: FreshnessLimits;
  thresholds: DatasetDriftThresholds;
  /** --accept-drift: the reason, and which command accepted it. */
  acceptDrift: { reason: string; by: DriftAcceptance['by'] } | null;
  /** build --allow-stale: a stale candidate is not refused (its manifest says it was published stale). */
  allowStale: boolean;
  /**
   * build: a stale candidate is refused before drift is compared (reading a full-scale bundle for
   * nothing). promote compares drift anyway, so that its report shows every reason at once.
   */
  driftWhenStale: boolean;
}

export type Refusal =
  | { kind: 'older-than-current'; current: NewerCurrent }
  | { kind: 'stale'; failing: RuleResult[] }
  | { kind: 'drift'; failing: RuleResult[]; baseline: string; current: NewerCurrent | null };

export interface Judgement {
  freshness: RuleResult[];
  /** The current snapshot the candidate would replace, as its pointer names it (null when none or broken). */
  expectedCurrent: string | null;
  /** The current snapshot when it was generated after the candidate. */
  newerCurrent: NewerCurrent | null;
  /** Null when drift was not compared (a stale build). */
  drift: DriftCheck | null;
  /** Drift checks that failed (accepted or not). */
  driftFailing: RuleResult[];
  /** The first reason the candidate may not become current, in the order above; null when it may. */
  refusal: Refusal | null;
  /** Set when drift checks failed and --accept-drift accepts them: what the store records. */
  acceptance: DriftAcceptance | null;
}

export async function judgeCandidate(store: SnapshotStore, candidate: Candidate, settings: JudgeSettings): Promise<Judgement> {
  const { dataset, side, publishedId } = candidate;
  const freshness = evaluateFreshness(dataset, candidate.facts, settings.now, { limits: settings.limits, warnWithinMs: 0 });
  const stale = settings.allowStale ? [] : freshness.filter((r) => r.status === 'fail');

  let expectedCurrent: string | null = null;
  try {
    expectedCurrent = (await store.currentPointer(dataset))?.snapshotId ?? null;
  } catch (error) {
    // A broken pointer is what publishing repairs; drift then compares with a stand-in (currentBaseline).
    if (!(error instanceof InvalidPointerError)) throw error;
  }
  const newer =
    expectedCurrent !== null && expectedCurrent !== publishedId
      ? await newerCurrent((id) => store.readManifest(id), expectedCurrent, side.generatedAt)
      : null;

  let drift: DriftCheck | null = null;
  if (stale.length === 0 || settings.driftWhenStale) {
    const baseline =
      publishedId !== null && expectedCurrent === publishedId
        ? { side: null, note: 'it is already current' }
        : await currentBaseline(store, dataset, publishedId ?? undefined);
    drift = await checkDrift(dataset, baseline.side, side, settings.thresholds, baseline.note, baseline.standIn);
  }
  const driftFailing = drift?.rules.filter((r) => r.status === 'fail') ?? [];

  const refusal: Refusal | null =
    newer !== null && publishedId !== null
      ? { kind: 'older-than-current', current: newer }
      : stale.length > 0
        ? { kind: 'stale', failing: stale }
        : driftFailing.length > 0 && settings.acceptDrift === null
          ? { kind: 'drift', failing: driftFailing, baseline: drift!.baseline!, current: newer }
          : null;
  const acceptance =
    refusal === null && driftFailing.length > 0 && settings.acceptDrift !== null
      ? acceptanceOf(settings.acceptDrift, settings.now, drift!)
      : null;
  return { freshness, expectedCurrent, newerCurrent: newer, drift, driftFailing, refusal, acceptance };
}

/** The record of an accepted drift, the same whichever command accepted it. */
function acceptanceOf(accept: { reason: string; by: DriftAcceptance['by'] }, now: Date, drift: DriftCheck): DriftAcceptance {
  return {
    reason: accept.reason,
    by: accept.by,
    acceptedAt: now.toISOString(),
    baseline: drift.baseline!,
    checks: drift.rules.filter((r) => r.status !== 'pass'),
  };
}

/**
 * What a drift refusal adds when the current snapshot was generated after the candidate (a store
 * whose current is dated in the future): accepting the drift would not make the candidate current.
 */
export function newerCurrentAdvice(dataset: DatasetName, current: NewerCurrent | null, generatedAt: string): string {
  if (current === null) return '';
  return (
    ` Current ${current.snapshotId} was generated at ${current.generatedAt}, after this snapshot (${generatedAt}): accepting the ` +
    `drift would not make this snapshot current. If ${current.snapshotId} is dated in the future, pdsnap rollback ${dataset} <an earlier snapshot> first`
  );
}
