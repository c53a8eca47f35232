import type { DatasetName } from '../model/dataset.js';
import type { RuleResult } from '../model/rule-result.js';
import { CLOCK_SKEW_MS } from '../lib/clock.js';
import { formatDuration } from '../lib/duration.js';

const FUTURE_SNAPSHOT_RULE = 'snapshot.generated-by-now';

/**
 * A snapshot generated after "now" was built with a `--now` ahead of the clock. It looks fresh for
 * longer than its data is, and it keeps every real build from becoming current, so validate and
 * gate fail it (docs/freshness.md, pdsnap validate: rule snapshot.generated-by-now). Clocks of two hosts may differ by
 * CLOCK_SKEW_MS; within it the rule passes.
 */
export function futureSnapshotRule(dataset: DatasetName, generatedAt: string, now: Date): RuleResult {
  const ahead = Date.parse(generatedAt) - now.getTime();
  const ok = !(ahead > CLOCK_SKEW_MS);
  return {
    rule: FUTURE_SNAPSHOT_RULE,
    observed: ahead > 0 ? `generated ${formatDuration(ahead, 'up')} after now` : `generated ${generatedAt}`,
    limit: `generated at most ${formatDuration(CLOCK_SKEW_MS)} after now`,
    status: ok ? 'pass' : 'fail',
    failsAt: null,
    message: ok
      ? `${dataset}: generated at ${generatedAt}, not after ${now.toISOString()}`
      : `${dataset}: generated at ${generatedAt}, ${formatDuration(ahead, 'up')} after now (${now.toISOString()}): built with a --now ahead of the clock; ` +
        'rebuild with the right clock, or pdsnap rollback to a snapshot generated before now',
  };
}
