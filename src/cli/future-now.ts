import { CLOCK_SKEW_MS, clockNow } from '../lib/clock.js';
import { formatDuration } from '../lib/duration.js';
import { UsageError } from './errors.js';

/**
 * A build dated after the clock would become current and stay current: every later build is older
 * than it, so it is "published but not made current", and validate and gate pass until the future
 * snapshot itself goes stale. So `build --now` may run ahead of the clock by CLOCK_SKEW_MS only;
 * `--allow-future-now` lifts that for a store named on the command line (rebuilding history or
 * preparing a dated store that no server reads).
 */
export function refuseFutureNow(now: Date, options: { allowFutureNow: boolean; storeOnCommandLine: boolean }): void {
  const clock = clockNow();
  const ahead = now.getTime() - clock.getTime();
  if (options.allowFutureNow) {
    if (!options.storeOnCommandLine) {
      throw new UsageError(
        '--allow-future-now needs --store DIR on the command line: a store dated in the future must be one that no server reads',
      );
    }
    return;
  }
  if (ahead <= CLOCK_SKEW_MS) return;
  throw new UsageError(
    `--now ${now.toISOString()} is ${formatDuration(ahead, 'up')} ahead of the clock (${clock.toISOString()}); ` +
      `a snapshot dated in the future would stay current over every later build. At most ${formatDuration(CLOCK_SKEW_MS)} ahead is accepted; ` +
      'to build a dated store on purpose, pass --allow-future-now with --store DIR naming a store no server reads',
  );
}
