import { formatReport, type ValidationReport } from '../validate/report.js';
import { isQuiet, isVerbose } from './verbosity.js';

/**
 * The readable validate/gate report at the verbosity asked for: --quiet keeps the rules that warn
 * or fail and the summary line (what a CI log needs), --verbose adds the message of every rule.
 */
export function reportText(report: ValidationReport): string {
  const full = formatReport(report);
  const summary = full.slice(full.lastIndexOf('\n') + 1);
  if (isQuiet()) {
    const problems = report.datasets.flatMap((d) =>
      d.rules.filter((r) => r.status !== 'pass').map((r) => `${r.status.toUpperCase()}  ${r.rule}: ${r.message}`),
    );
    return [...problems, summary].join('\n');
  }
  if (!isVerbose()) return full;
  const passing = report.datasets.flatMap((d) => d.rules.filter((r) => r.status === 'pass').map((r) => `  PASS  ${r.rule}: ${r.message}`));
  const end = full.lastIndexOf('\nresult: ');
  return [full.slice(0, end).trimEnd(), '', ...passing, '', full.slice(end + 1)].join('\n');
}
