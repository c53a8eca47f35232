import { addDays } from 'date-fns';
import { FILING_DEADLINE_DAYS, previousQuarterEnd } from '../lib/quarters.js';

const isoDate = (d: Date) => d.toISOString().slice(0, 10);

/** Quarter end (YYYY-MM-DD, UTC) of the latest quarter whose filing deadline has passed at `now`. */
export function latestFiledQuarterEnd(now: Date): string {
  // Work on UTC calendar fields through a UTC-noon date so the local zone of the machine never matters.
  let candidate = utcQuarterEnd(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 12)));
  while (addDays(new Date(`${candidate}T00:00:00Z`), FILING_DEADLINE_DAYS).getTime() > now.getTime()) {
    candidate = previousQuarterEnd(candidate)!;
  }
  return candidate;
}

/** date-fns' endOfQuarter works in the machine's local zone; quarter ends here are UTC calendar dates. */
function utcQuarterEnd(date: Date): string {
  const month = date.getUTCMonth();
  const endMonth = month - (month % 3) + 2;
  return isoDate(new Date(Date.UTC(date.getUTCFullYear(), endMonth + 1, 0, 12)));
}
