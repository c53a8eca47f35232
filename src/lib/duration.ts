import { DAY_MS, HOUR_MS } from './time.js';

const UNIT_MS = { d: DAY_MS, h: HOUR_MS, m: 60_000, s: 1_000 } as const;
const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;

/**
 * Parses a duration written like `24h`, `7d`, `90m`, `30s`, `500ms` or `1d12h` (units in that order,
 * each at most once) into milliseconds. Anything else is refused, naming the value, so a typo such as
 * `24` or `2w` never silently becomes zero.
 */
export function parseDuration(text: string): number {
  const match = DURATION.exec(text.trim());
  if (!match || text.trim() === '') {
    throw new Error(`"${text}" is not a duration; write it like 24h, 7d, 90m, 30s, 500ms or 1d12h`);
  }
  const [, d, h, m, s, milliseconds] = match;
  const ms =
    Number(d ?? 0) * UNIT_MS.d +
    Number(h ?? 0) * UNIT_MS.h +
    Number(m ?? 0) * UNIT_MS.m +
    Number(s ?? 0) * UNIT_MS.s +
    Number(milliseconds ?? 0);
  // Beyond any snapshot's life, and beyond what a date can add: 300000000d made "Invalid time value".
  if (ms > MAX_DURATION_MS) throw new Error(`"${text}" is longer than the ${MAX_DURATION_MS / UNIT_MS.d}d (100 years) a duration may be`);
  return ms;
}

const MAX_DURATION_MS = 36_500 * DAY_MS;

/**
 * Writes milliseconds back in the same notation, to the second and without zero units (`7d`,
 * `2d 3h 15m`, `59s`). A part of a second is rounded the way that keeps a comparison with a limit
 * true: `up` for an age (7 days and 1 ms reads `7d 1s`, past a 7d limit, not `7d`), `down` (the
 * default) for what remains (1 ms short of 2d reads `1d 23h 59m 59s`, short of a 2d minimum).
 */
export function formatDuration(ms: number, rounding: 'down' | 'up' = 'down'): string {
  if (!Number.isFinite(ms)) return String(ms);
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  let rest = (rounding === 'up' ? Math.ceil(abs / 1000) : Math.floor(abs / 1000)) * 1000;
  const parts: string[] = [];
  for (const [unit, size] of Object.entries(UNIT_MS)) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(`${n}${unit}`);
  }
  return parts.length === 0 ? '0s' : `${sign}${parts.join(' ')}`;
}
