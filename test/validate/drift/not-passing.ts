import type { RuleResult, RuleStatus } from '../../../src/model/rule-result.js';

/** The rules that did not pass, by rule: what a table of cases expects. */
export function notPassing(results: readonly RuleResult[]): Record<string, RuleStatus> {
  return Object.fromEntries(results.filter((r) => r.status !== 'pass').map((r) => [r.rule, r.status]));
}
