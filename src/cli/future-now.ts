import { CLOCK_ENV, CLOCK_SKEW_MS, clockNow, hostNow } from '../lib/clock.js';
import { formatDuration } from '../lib/duration.js';
import { isBucketLocation } from '../publish/s3-location.js';
import { UsageError } from './errors.js';

const WAY_OUT = 'to build a dated store on purpose, pass --allow-future-now with --store DIR naming a folder no server reads';

/**
 * A build dated after the clock would become current and stay current: every later build is older
 * than it, so it is "published but not made current", and validate and gate pass until the future
 * snapshot itself goes stale. So `build --now` may run ahead of the clock by CLOCK_SKEW_MS only,
 * and so may PDSNAP_CLOCK (a rehearsal hook) run ahead of the host's own clock: left set by
 * mistake, it would date every snapshot in the future. `--allow-future-now` lifts both for a folder
 * store named on the command line (rebuilding history or preparing a dated store that no server
 * reads); never for a bucket, which is what servers read.
 */
export function refuseFutureNow(now: Date, options: { allowFutureNow: boolean; storeOnCommandLine: string | undefined }): void {
  if (options.allowFutureNow) {
    if (options.storeOnCommandLine === undefined) {
      throw new UsageError(
        '--allow-future-now needs --store DIR on the command line: a store dated in the future must be one that no server reads',
      );
    }
    if (isBucketLocation(options.storeOnCommandLine)) {
      throw new UsageError(
        `--allow-future-now needs a folder --store, not ${options.storeOnCommandLine}: a bucket is what servers read, and a store dated in the future must be one that no server reads`,
      );
    }
    return;
  }
  const clock = clockNow();
  const host = hostNow();
  const clockAhead = clock.getTime() - host.getTime();
  if (clockAhead > CLOCK_SKEW_MS) {
    throw new UsageError(
      `${CLOCK_ENV}=${clock.toISOString()} is ${formatDuration(clockAhead, 'up')} ahead of this host's clock (${host.toISOString()}); ` +
        `a build on it would date its snapshots in the future, and they would stay current over every later build. Unset ${CLOCK_ENV}, or ${WAY_OUT}`,
    );
  }
  const ahead = now.getTime() - clock.getTime();
  if (ahead <= CLOCK_SKEW_MS) return;
  throw new UsageError(
    `--now ${now.toISOString()} is ${formatDuration(ahead, 'up')} ahead of the clock (${clock.toISOString()}); ` +
      `a snapshot dated in the future would stay current over every later build. At most ${formatDuration(CLOCK_SKEW_MS)} ahead is accepted; ${WAY_OUT}`,
  );
}
