import type { RuleResult } from '../../model/rule-result.js';
import { graded, pair, SAMPLE_SIZE } from './core.js';
import type { ResourceThresholds } from './thresholds.js';

/**
 * The checks every resource of every dataset gets: its record count (shrink, growth) and, where
 * identity is stable, its key churn (lost-keys, new-keys).
 */

/**
 * What drift needs to know of one resource: record counts from the manifests, and (where identity
 * is stable) the key churn that the comparison engine (src/publish/diff/bundle-diff.ts) measured.
 */
export interface ResourceChange {
  before: number;
  after: number;
  /** Absent where identity churns by design (trades) or where only counts were compared (history). */
  keys?: { lost: number; added: number; lostSample: readonly string[] };
}

export function resourceChecks(resource: string, change: ResourceChange, limits: ResourceThresholds): RuleResult[] {
  return [
    ...countChecks(resource, change.before, change.after, limits),
    ...(change.keys ? keyChecks(resource, change, change.keys, limits) : []),
  ];
}

function countChecks(resource: string, before: number, after: number, limits: ResourceThresholds): RuleResult[] {
  const observed = `${before} -> ${after} records (${signedPercent(before, after)})`;
  const shrink = before === 0 ? 0 : ((before - after) / before) * 100;
  const growth = before === 0 ? (after === 0 ? 0 : Number.POSITIVE_INFINITY) : ((after - before) / before) * 100;
  return [
    graded(`drift.${resource}.shrink`, observed, shrink, pair(limits, 'shrink'), 'fewer records', `${resource}: ${observed}`),
    graded(`drift.${resource}.growth`, observed, growth, pair(limits, 'growth'), 'more records', `${resource}: ${observed}`),
  ];
}

function keyChecks(
  resource: string,
  counts: ResourceChange,
  keys: NonNullable<ResourceChange['keys']>,
  limits: ResourceThresholds,
): RuleResult[] {
  const lostShare = counts.before === 0 ? 0 : (keys.lost / counts.before) * 100;
  const newShare = counts.after === 0 ? 0 : (keys.added / counts.after) * 100;
  const lostObserved = `${keys.lost} of ${counts.before} keys lost (${lostShare.toFixed(1)}%)`;
  const sample = keys.lostSample.slice(0, SAMPLE_SIZE);
  const more = keys.lost > sample.length ? ` and ${keys.lost - sample.length} more` : '';
  const lostMessage = keys.lost === 0 ? `${resource}: no key lost` : `${resource}: ${lostObserved}, e.g. ${sample.join(', ')}${more}`;
  return [
    graded(`drift.${resource}.lost-keys`, lostObserved, lostShare, pair(limits, 'lostKeys'), 'of keys lost', lostMessage),
    graded(
      `drift.${resource}.new-keys`,
      `${keys.added} of ${counts.after} keys new (${newShare.toFixed(1)}%)`,
      newShare,
      pair(limits, 'newKeys'),
      'of keys new',
      `${resource}: ${keys.added} of ${counts.after} keys are new`,
    ),
  ];
}

function signedPercent(before: number, after: number): string {
  if (before === 0) return after === 0 ? '0%' : 'new';
  const change = ((after - before) / before) * 100;
  return `${change >= 0 ? '+' : ''}${change.toFixed(1)}%`;
}
