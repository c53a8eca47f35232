import type { DatasetName } from '../model/dataset.js';
import type { RuleResult } from '../model/rule-result.js';
import type { Manifest } from '../model/manifest.js';
import { ContentCheck, type SnapshotRef } from '../model/content-rules.js';
import { formatDuration } from '../lib/duration.js';
import { evaluateFreshness, freshUntil } from './freshness.js';
import { futureSnapshotRule } from './future-snapshot.js';
import type { FreshnessLimits } from './limits.js';
import type { DatasetValidation } from './report.js';
import { worstStatus } from './report.js';
import { checkResourceSchema, describeSchemaProblem, MAX_SCHEMA_PROBLEMS, type SchemaProblem } from '../model/schema-check.js';

/**
 * Turns what was read from the store into report rules. Pure: the caller streams the bundle's
 * records through a RecordChecks (and so verifies every part's digest); this module only judges.
 */

export interface BundleCheckOptions {
  limits: FreshnessLimits;
  warnWithinMs: number;
  /** gate only: every snapshot must stay fresh at least this long after now. */
  minRemainingMs: number | null;
}

/**
 * The schema and content rules of a bundle, judged record by record as the records stream past:
 * memory holds the findings (bounded) and the consensus rows (for the page-size rule), never a
 * resource.
 */
export class RecordChecks {
  private readonly content: ContentCheck;
  private readonly problems: SchemaProblem[] = [];
  private readonly counts = new Map<string, number>();
  private records = 0;

  constructor(private readonly dataset: DatasetName) {
    this.content = new ContentCheck(dataset);
  }

  inspect(resource: string, record: unknown): void {
    const index = this.counts.get(resource) ?? 0;
    this.counts.set(resource, index + 1);
    this.records += 1;
    if (this.problems.length < MAX_SCHEMA_PROBLEMS) {
      for (const problem of checkResourceSchema(this.dataset, resource, [record])) this.problems.push({ ...problem, index });
    }
    this.content.inspect(resource, record);
  }

  results(snapshot: SnapshotRef): RuleResult[] {
    return [schemaRule(this.dataset, this.problems, this.records), ...this.content.results(snapshot)];
  }
}

/** A bundle whose digests were verified while its records went through `recordRules` (RecordChecks.results). */
export interface VerifiedBundle {
  manifest: Manifest;
  recordRules: RuleResult[];
}

export function validateBundle(bundle: VerifiedBundle, now: Date, options: BundleCheckOptions): DatasetValidation {
  const { manifest, recordRules } = bundle;
  const dataset = manifest.dataset;
  const until = freshUntil(dataset, manifest.facts, options.limits);
  const rules: RuleResult[] = [
    {
      rule: 'integrity',
      observed: `manifest and ${manifest.files.length} file(s) verified`,
      limit: 'sha256, bytes, records as in manifest',
      status: 'pass',
      failsAt: null,
      message: `${dataset}: ${manifest.snapshotId} matches its manifest`,
    },
    ...evaluateFreshness(dataset, manifest.facts, now, { limits: options.limits, warnWithinMs: options.warnWithinMs }),
    futureSnapshotRule(dataset, manifest.generatedAt, now),
    ...recordRules,
  ];
  if (options.minRemainingMs !== null) rules.push(minRemainingRule(dataset, until, now, options.minRemainingMs));
  return {
    dataset,
    snapshotId: manifest.snapshotId,
    generatedAt: manifest.generatedAt,
    freshUntil: until.toISOString(),
    allowStale: manifest.allowStale,
    status: worstStatus(rules.map((r) => r.status)),
    rules,
  };
}

/**
 * A dataset that could not be checked: no current snapshot, or a bundle that failed verification.
 * It fails, and under gate its min-remaining rule fails too, so that the JSON names it.
 */
export function unavailableDataset(
  dataset: DatasetName,
  snapshotId: string | null,
  rule: 'snapshot' | 'integrity',
  reason: string,
  options: Pick<BundleCheckOptions, 'minRemainingMs'>,
): DatasetValidation {
  const rules: RuleResult[] = [
    {
      rule,
      observed: rule === 'snapshot' ? 'none' : 'failed',
      limit: rule === 'snapshot' ? 'a current snapshot' : 'sha256, bytes, records as in manifest',
      status: 'fail',
      failsAt: null,
      message: `${dataset}: ${reason}`,
    },
  ];
  if (options.minRemainingMs !== null) {
    rules.push({
      rule: 'gate.min-remaining',
      observed: 'no verified snapshot',
      limit: `at least ${formatDuration(options.minRemainingMs)} remaining`,
      status: 'fail',
      failsAt: null,
      message: `${dataset}: nothing verified to deploy`,
    });
  }
  return { dataset, snapshotId, generatedAt: null, freshUntil: null, allowStale: false, status: 'fail', rules };
}

function schemaRule(dataset: DatasetName, problems: SchemaProblem[], records: number): RuleResult {
  if (problems.length === 0) {
    return {
      rule: 'schema',
      observed: `${records} record(s) valid`,
      limit: 'generated JSON Schema',
      status: 'pass',
      failsAt: null,
      message: `${dataset}: every record matches its JSON Schema`,
    };
  }
  const listed = problems.slice(0, 5).map(describeSchemaProblem).join('; ');
  const count = problems.length >= MAX_SCHEMA_PROBLEMS ? `${problems.length}+` : String(problems.length);
  return {
    rule: 'schema',
    observed: `${count} problem(s)`,
    limit: 'generated JSON Schema',
    status: 'fail',
    failsAt: null,
    message: `${dataset}: ${count} schema problem(s): ${listed}${problems.length > 5 ? '; ...' : ''}`,
  };
}

/** gate: the snapshot must stay fresh until at least now + minRemaining (freshUntil >= now + DUR passes). */
export function minRemainingRule(dataset: DatasetName, until: Date, now: Date, minRemainingMs: number): RuleResult {
  const remaining = until.getTime() - now.getTime();
  const ok = remaining >= minRemainingMs;
  const observed = remaining < 0 ? `stale for ${formatDuration(-remaining, 'up')}` : `${formatDuration(remaining)} remaining`;
  return {
    rule: 'gate.min-remaining',
    observed,
    limit: `at least ${formatDuration(minRemainingMs)} remaining`,
    status: ok ? 'pass' : 'fail',
    failsAt: new Date(until.getTime() - minRemainingMs).toISOString(),
    message: ok
      ? `${dataset}: fresh until ${until.toISOString()}, ${observed}`
      : `${dataset}: fresh until ${until.toISOString()} (${observed}); a deploy needs at least ${formatDuration(minRemainingMs)}`,
  };
}
