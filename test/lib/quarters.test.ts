import { describe, expect, it } from 'vitest';
import {
  isQuarterEnd,
  previousQuarterEnd,
  quarterEndOnOrBefore,
  quarterOfDay,
  quartersThrough,
  reportQuarters,
} from '../../src/lib/quarters.js';
import { isPeriodTooOld, newestTooOldPeriod, quarterEndInstant } from '../../src/derive/smart-money/staleness.js';

describe('previousQuarterEnd', () => {
  it.each([
    ['2026-03-31', '2025-12-31'],
    ['2026-06-30', '2026-03-31'],
    ['2026-09-30', '2026-06-30'],
    ['2026-12-31', '2026-09-30'],
  ])('%s -> %s', (period, previous) => {
    expect(previousQuarterEnd(period)).toBe(previous);
  });

  it('has no adjacent quarter for a period that is not a quarter end', () => {
    expect(isQuarterEnd('2026-09-29')).toBe(false);
    expect(previousQuarterEnd('2026-09-29')).toBeNull();
    expect(previousQuarterEnd('2026-06-31')).toBeNull();
  });
});

describe('quarter age', () => {
  it('counts a quarter end until 23:59:59.999Z of that day', () => {
    expect(quarterEndInstant('2026-09-30').toISOString()).toBe('2026-09-30T23:59:59.999Z');
  });

  it('is at most 180 days old exactly 180 days after that instant, and too old 1 ms later', () => {
    expect(isPeriodTooOld('2026-09-30', new Date('2027-03-29T23:59:59.999Z'), 180)).toBe(false);
    expect(isPeriodTooOld('2026-09-30', new Date('2027-03-30T00:00:00.000Z'), 180)).toBe(true);
  });
});

describe('quarterEndOnOrBefore', () => {
  it.each([
    ['2026-12-06T10:00:00.000Z', '2026-09-30'],
    ['2026-09-30T23:59:59.999Z', '2026-09-30'],
    ['2026-10-01T00:00:00.000Z', '2026-09-30'],
    ['2026-03-30T00:00:00.000Z', '2025-12-31'],
    ['2026-12-31T00:00:00.000Z', '2026-12-31'],
  ])('%s -> %s', (instant, end) => {
    expect(quarterEndOnOrBefore(new Date(instant))).toBe(end);
  });
});

describe('newestTooOldPeriod: the one fact of `now` the 180-day rule depends on', () => {
  it.each([
    // 2026-06-30 is fresh through 2026-12-27T23:59:59.999Z, too old one millisecond later.
    ['2026-12-27T23:59:59.999Z', '2026-03-31'],
    ['2026-12-28T00:00:00.000Z', '2026-06-30'],
    ['2026-12-06T00:00:00.000Z', '2026-03-31'],
    ['2027-03-29T00:00:00.000Z', '2026-06-30'],
  ])('at %s: %s', (instant, period) => {
    const now = new Date(instant);
    expect(newestTooOldPeriod(now, 180)).toBe(period);
    expect(isPeriodTooOld(period, now, 180)).toBe(true);
    const next = ['2026-03-31', '2026-06-30', '2026-09-30', '2026-12-31'].find((p) => p > period)!;
    expect(isPeriodTooOld(next, now, 180)).toBe(false);
  });
});

describe('the report quarters of a build', () => {
  it('are the latest quarter whose 45-day deadline has passed, and the one before', () => {
    expect(reportQuarters(new Date('2026-11-22T12:00:00Z'))).toEqual(['2026-06-30', '2026-09-30']);
    expect(reportQuarters(new Date('2026-11-14T00:00:00Z'))).toEqual(['2026-06-30', '2026-09-30']);
    expect(reportQuarters(new Date('2026-11-13T23:59:59Z'))).toEqual(['2026-03-31', '2026-06-30']);
    expect(reportQuarters(new Date('2027-01-10T00:00:00Z'))).toEqual(['2026-06-30', '2026-09-30']);
    expect(reportQuarters(new Date('2027-02-14T00:00:00Z'))).toEqual(['2026-09-30', '2026-12-31']);
  });

  it('counts calendar quarters across a year end', () => {
    expect(quartersThrough({ year: 2025, quarter: 4 }, { year: 2026, quarter: 2 })).toEqual([
      { year: 2025, quarter: 4 },
      { year: 2026, quarter: 1 },
      { year: 2026, quarter: 2 },
    ]);
    expect(quartersThrough({ year: 2026, quarter: 3 }, { year: 2026, quarter: 2 })).toEqual([]);
    expect(quarterOfDay('2026-10-01')).toEqual({ year: 2026, quarter: 4 });
  });
});
