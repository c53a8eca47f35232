import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { clockNow, CLOCK_ENV } from '../../src/lib/clock.js';
import { UsageError } from '../../src/cli/errors.js';
import { NowOption, parseOptions } from '../../src/cli/options.js';

const Options = z.object({ now: NowOption });
const parseNow = (now: string | undefined) => parseOptions(Options, { now }).now;

describe('--now', () => {
  const saved = process.env[CLOCK_ENV];
  afterEach(() => {
    if (saved === undefined) delete process.env[CLOCK_ENV];
    else process.env[CLOCK_ENV] = saved;
  });

  it('takes an instant with a zone, and a calendar date as its start in UTC', () => {
    expect(parseNow('2026-11-22T08:00:00Z').toISOString()).toBe('2026-11-22T08:00:00.000Z');
    expect(parseNow('2026-11-22T17:00:00.250+09:00').toISOString()).toBe('2026-11-22T08:00:00.250Z');
    expect(parseNow('2024-02-29').toISOString()).toBe('2024-02-29T00:00:00.000Z');
  });

  it.each(['2026-02-30T00:00:00Z', '2026-02-30', '2025-02-29T12:00:00Z', '2026-04-31T00:00:00+02:00', '2026-13-01T00:00:00Z'])(
    'refuses %s, a date that does not exist, rather than rolling it over',
    (value) => {
      expect(() => parseNow(value)).toThrow(new UsageError(`--now: "${value}": ${value.slice(0, 10)} is not a day of the calendar`));
    },
  );

  it.each(['2026-11-22T08:00:00', 'yesterday', '2026-11-22T08:00Z junk'])('refuses %s', (value) => {
    expect(() => parseNow(value)).toThrow(UsageError);
  });

  it('defaults to PDSNAP_CLOCK, parsed as --now is (docs/command-line.md: the same way)', () => {
    process.env[CLOCK_ENV] = '2026-11-22T12:00:00.000Z';
    expect(parseNow(undefined).toISOString()).toBe('2026-11-22T12:00:00.000Z');
    // A calendar date is its start in UTC, as with --now (until 2026-11-27 PDSNAP_CLOCK refused it).
    process.env[CLOCK_ENV] = '2026-11-22';
    expect(clockNow().toISOString()).toBe('2026-11-22T00:00:00.000Z');
    expect(parseNow(undefined).toISOString()).toBe('2026-11-22T00:00:00.000Z');
    process.env[CLOCK_ENV] = '2026-02-30T00:00:00Z';
    expect(() => clockNow()).toThrow(`${CLOCK_ENV}="2026-02-30T00:00:00Z": 2026-02-30 is not a day of the calendar`);
    expect(() => parseNow(undefined)).toThrow(
      new UsageError(`--now: ${CLOCK_ENV}="2026-02-30T00:00:00Z": 2026-02-30 is not a day of the calendar`),
    );
    process.env[CLOCK_ENV] = '2026-11-22T08:00:00';
    expect(() => clockNow()).toThrow(
      `${CLOCK_ENV}="2026-11-22T08:00:00" is not an ISO 8601 instant with a zone, e.g. 2026-11-22T08:00:00Z`,
    );
  });
});
