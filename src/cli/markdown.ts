import type { RuleResult, RuleStatus } from '../model/rule-result.js';
import type { ResourceDiff } from '../publish/diff/bundle-diff.js';
import { formatDuration } from '../lib/duration.js';
import type { ValidationReport } from '../validate/report.js';
import type { BuildReport, DatasetReport } from './pipeline/build.js';
import type { FetchReport } from '../fetch/fetch-report.js';
import { FETCH_COUNT_HEADER, fetchCountRows, fetchFigures, fetchLastLine } from './fetch-summary.js';

/**
 * `--format markdown`: reports people read in a pull request or a CI job summary
 * ($GITHUB_STEP_SUMMARY). GitHub-flavoured tables, one row per dataset, then one table of checks
 * per dataset. The same reports as the text and JSON forms, nothing more.
 */

const MARK: Record<RuleStatus, string> = { pass: '✓', warn: '⚠', fail: '✗' };

/** The rows of a GFM table; a cell never breaks the table (pipes escaped, lines joined). */
function markdownTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(header), `|${header.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n');
}

function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function code(text: string | null): string {
  return text === null ? '-' : `\`${text.replace(/`/g, "'")}\``;
}

/** Time until `freshUntil`, to the minute: what a person deciding on a deploy wants to know. */
function timeLeft(freshUntil: string | null, now: string): string {
  if (freshUntil === null) return '-';
  const ms = Date.parse(freshUntil) - Date.parse(now);
  if (ms <= 0) return `stale since ${freshUntil}`;
  return formatDuration(Math.floor(ms / 60_000) * 60_000);
}

/** The drift figures of a dataset in one cell: the worst checks first, passing ones counted. */
function driftCell(rules: readonly RuleResult[]): string {
  const drift = rules.filter((r) => r.rule.startsWith('drift.'));
  if (drift.length === 0) return '-';
  const notPassing = drift.filter((r) => r.status !== 'pass');
  if (notPassing.length === 0) return `${MARK.pass} ${drift.length === 1 ? drift[0]!.message : `${drift.length} checks pass`}`;
  return notPassing.map((r) => `${MARK[r.status]} ${r.rule} ${r.observed}`).join('; ');
}

function checksTable(rules: readonly RuleResult[]): string {
  return markdownTable(
    ['check', 'status', 'observed', 'limit', 'message'],
    rules.map((r) => [r.rule, `${MARK[r.status]} ${r.status}`, r.observed, r.limit, r.message]),
  );
}

function buildStatus(d: DatasetReport): RuleStatus {
  if (d.outcome === 'failed' || d.outcome === 'error') return 'fail';
  return [...d.freshness, ...d.drift].some((r) => r.status !== 'pass') ? 'warn' : 'pass';
}

const SHOWN_REJECTIONS = 20;

export function buildMarkdown(report: BuildReport): string {
  const out: string[] = [`## pdsnap build at ${report.now}`, ''];
  out.push(
    markdownTable(
      ['dataset', 'status', 'outcome', 'snapshot', 'records', 'time left', 'drift', 'rejected'],
      report.datasets.map((d) => [
        d.dataset,
        MARK[buildStatus(d)],
        d.candidate ? 'candidate' : d.outcome,
        code(d.snapshotId),
        Object.entries(d.records)
          .map(([name, n]) => `${name} ${n}`)
          .join(', ') || '-',
        timeLeft(d.freshUntil, report.now),
        driftCell(d.drift),
        String(d.rejected.length),
      ]),
    ),
  );
  for (const d of report.datasets) {
    out.push('', `### ${d.dataset}`, '');
    if (d.reason) out.push(`${d.outcome === 'failed' || d.outcome === 'error' ? '**Not published.** ' : ''}${d.reason}`, '');
    const rules = [...d.freshness, ...d.drift];
    if (rules.length > 0) out.push(checksTable(rules), '');
    if (d.rejected.length > 0) {
      out.push(`${d.rejected.length} source record(s) rejected:`, '');
      out.push(
        markdownTable(
          ['file', 'location', 'reason'],
          d.rejected.slice(0, SHOWN_REJECTIONS).map((r) => [r.source, r.location, r.reason]),
        ),
      );
      if (d.rejected.length > SHOWN_REJECTIONS)
        out.push('', `… and ${d.rejected.length - SHOWN_REJECTIONS} more (\`pdsnap build --json\` lists them all)`);
      out.push('');
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
}

export function validationMarkdown(report: ValidationReport): string {
  const gate = report.minRemaining === null ? '' : `, min remaining ${report.minRemaining}`;
  const out: string[] = [`## pdsnap ${report.command} at ${report.now}: ${MARK[report.status]} ${report.status.toUpperCase()}`, ''];
  out.push(
    `Warn within ${report.warnWithin}${gate}; limits: ${report.config === null ? 'service defaults' : `overridden by \`${report.config}\``}.`,
    '',
  );
  out.push(
    markdownTable(
      ['dataset', 'status', 'snapshot', 'time left', 'drift', 'not passing'],
      report.datasets.map((d) => [
        d.dataset,
        MARK[d.status],
        code(d.snapshotId),
        timeLeft(d.freshUntil, report.now),
        driftCell(d.rules),
        d.rules
          .filter((r) => r.status !== 'pass')
          .map((r) => r.rule)
          .join(', ') || '-',
      ]),
    ),
  );
  for (const d of report.datasets) out.push('', `### ${d.dataset}`, '', checksTable(d.rules));
  out.push('', `PASS=${report.summary.pass} WARN=${report.summary.warn} FAIL=${report.summary.fail}`);
  return `${out.join('\n')}\n`;
}

export interface DiffReport {
  dataset: string;
  from: string;
  to: string;
  resources: ResourceDiff[];
}

/** The per-resource counts of a diff, as the text and the Markdown output both tabulate them. */
export const DIFF_COUNT_HEADER = ['resource', 'before', 'after', 'added', 'removed', 'changed', 'unchanged'];

export function diffCountRow(r: ResourceDiff): string[] {
  return [r.resource, ...[r.before, r.after, r.added, r.removed, r.changed, r.unchanged].map(String)];
}

export function diffMarkdown(report: DiffReport): string {
  const out: string[] = [`## pdsnap diff ${report.dataset}`, '', `From ${code(report.from)} to ${code(report.to)}.`, ''];
  out.push(markdownTable(DIFF_COUNT_HEADER, report.resources.map(diffCountRow)));
  for (const r of report.resources) {
    if (r.added + r.removed + r.changed === 0) continue;
    out.push('', `### ${r.resource}`, '');
    const rows = [
      ...r.addedKeys.map((key) => ['added', key, '']),
      ...r.removedKeys.map((key) => ['removed', key, '']),
      ...r.changedRecords.map((c) => ['changed', c.key, c.fields.join(', ')]),
    ];
    out.push(markdownTable(['change', 'key', 'fields changed'], rows));
    const fields = Object.entries(r.changedFields).sort((a, b) => b[1] - a[1]);
    if (fields.length > 0) out.push('', `Fields changed: ${fields.map(([name, n]) => `${name} (${n})`).join(', ')}.`);
  }
  return `${out.join('\n')}\n`;
}

export function fetchMarkdown(report: FetchReport): string {
  const status: RuleStatus = report.ok ? 'pass' : 'fail';
  const out: string[] = [`## pdsnap fetch at ${report.now}: ${MARK[status]} ${fetchLastLine(report)}`, ''];
  if (report.sec !== null) {
    out.push(
      `SEC: ${code(report.sec.url)}, at most ${report.sec.maxRps} request(s) a second, filers ${report.sec.filers}, indexes of ${report.sec.quarters.join(', ')}.`,
      '',
    );
  }
  out.push(markdownTable(FETCH_COUNT_HEADER, fetchCountRows(report)), '', `${fetchFigures(report)}.`);
  const failed = report.files.filter((f) => f.outcome === 'failed');
  if (failed.length > 0) {
    out.push('', '### Not fetched (the last good copy is kept)', '');
    out.push(
      markdownTable(
        ['file', 'address', 'reason'],
        failed.map((f) => [f.path, f.url, f.reason ?? '-']),
      ),
    );
  }
  return `${out.join('\n')}\n`;
}
