import { formatTable } from '../model/text-table.js';
import type { DatasetName } from '../model/dataset.js';
import type { RuleResult, RuleStatus } from '../model/rule-result.js';
import type { FreshnessLimits } from './limits.js';

/**
 * The report of `validate` and `gate`: per dataset, every rule (freshness, integrity, schema,
 * content, gate) as a RuleResult; the overall status is the worst of them all.
 */

export interface DatasetValidation {
  dataset: DatasetName;
  /** The snapshot checked; null when the dataset has no current snapshot. */
  snapshotId: string | null;
  generatedAt: string | null;
  /** Recomputed with the limits in force, so an override shows here too. */
  freshUntil: string | null;
  /** The snapshot was published with --allow-stale. */
  allowStale: boolean;
  status: RuleStatus;
  rules: RuleResult[];
}

export interface RuleCounts {
  pass: number;
  warn: number;
  fail: number;
}

export interface ValidationReport {
  command: 'validate' | 'gate';
  now: string;
  store: string;
  /** The config file whose limits were used; null for the service defaults. */
  config: string | null;
  limits: FreshnessLimits;
  warnWithin: string;
  /** gate only. */
  minRemaining: string | null;
  status: RuleStatus;
  summary: RuleCounts;
  datasets: DatasetValidation[];
}

const SEVERITY: Record<RuleStatus, number> = { pass: 0, warn: 1, fail: 2 };

export function worstStatus(statuses: Iterable<RuleStatus>): RuleStatus {
  let worst: RuleStatus = 'pass';
  for (const status of statuses) if (SEVERITY[status] > SEVERITY[worst]) worst = status;
  return worst;
}

function countRules(rules: Iterable<RuleResult>): RuleCounts {
  const counts: RuleCounts = { pass: 0, warn: 0, fail: 0 };
  for (const rule of rules) counts[rule.status]++;
  return counts;
}

export function assembleReport(fields: Omit<ValidationReport, 'status' | 'summary'>): ValidationReport {
  const rules = fields.datasets.flatMap((d) => d.rules);
  return { ...fields, status: worstStatus(rules.map((r) => r.status)), summary: countRules(rules) };
}

/** `PASS=n WARN=n FAIL=n`: counts of rules, the last line of the text report. */
export function summaryLine(report: ValidationReport): string {
  return `PASS=${report.summary.pass} WARN=${report.summary.warn} FAIL=${report.summary.fail}`;
}

/** The readable report: a header, one aligned row per rule, the reasons of what did not pass, the summary. */
export function formatReport(report: ValidationReport): string {
  const lines: string[] = [];
  const gate = report.minRemaining === null ? '' : `, min remaining ${report.minRemaining}`;
  lines.push(`pdsnap ${report.command} at ${report.now} (warn within ${report.warnWithin}${gate})`);
  lines.push(`  store   ${report.store}`);
  lines.push(`  limits  ${report.config === null ? 'service defaults' : `service defaults overridden by ${report.config}`}`);
  lines.push('');
  for (const d of report.datasets) {
    const until = d.freshUntil ? `  fresh until ${d.freshUntil}` : '';
    lines.push(
      `${d.dataset.padEnd(12)} ${d.snapshotId ?? '(no snapshot)'}${until}${d.allowStale ? '  (published with --allow-stale)' : ''}`,
    );
  }
  lines.push('');
  lines.push(
    formatTable(
      ['dataset', 'rule', 'status', 'observed', 'limit', 'fails at'],
      report.datasets.flatMap((d) =>
        d.rules.map((r) => [d.dataset, r.rule, r.status.toUpperCase(), r.observed, r.limit, r.failsAt ?? '-']),
      ),
    ),
  );
  const problems = report.datasets.flatMap((d) =>
    d.rules.filter((r) => r.status !== 'pass').map((r) => `  ${r.status.toUpperCase()}  ${r.rule}: ${r.message}`),
  );
  if (problems.length > 0) {
    lines.push('');
    lines.push(...problems);
  }
  lines.push('');
  lines.push(`result: ${report.status.toUpperCase()}`);
  lines.push(summaryLine(report));
  return lines.join('\n');
}
