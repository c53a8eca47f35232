import { describe, expect, it } from 'vitest';
import { ParameterProblem } from '../../src/serve/api-error.js';
import { calendarRange, futureWindow, publicationRange } from '../../src/serve/calendar-window.js';

describe('calendarRange (Profile A from/to)', () => {
  it('accepts 93 days counting both ends and covers the whole last day', () => {
    const range = calendarRange('2026-01-01', '2026-04-03');
    expect(new Date(range.startMs).toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(new Date(range.endMs).toISOString()).toBe('2026-04-04T00:00:00.000Z');
  });
  it('refuses 94 days', () => {
    expect(() => calendarRange('2026-01-01', '2026-04-04')).toThrow(/covers 94 days; at most 93/);
  });
  it('reads the years 0000 to 0099 as written, not as 1900 to 1999: a range from year 50 is refused as too long', () => {
    expect(() => calendarRange('0050-01-01', '2026-01-01')).toThrow(/covers \d+ days; at most 93/);
    expect(new Date(calendarRange('0048-02-29', '0048-03-01').startMs).toISOString()).toBe('0048-02-29T00:00:00.000Z');
    expect(publicationRange('0099-01-01', undefined).startMs).toBe(Date.parse('0099-01-01T00:00:00.000Z'));
  });
  it('accepts a single day and refuses to before from', () => {
    expect(calendarRange('2026-11-22', '2026-11-22').endMs - calendarRange('2026-11-22', '2026-11-22').startMs).toBe(86_400_000);
    expect(() => calendarRange('2026-11-22', '2026-11-21')).toThrow(ParameterProblem);
  });
});

describe('futureWindow (Profile B futureDays)', () => {
  it('starts at the start of the current UTC day and ends after the day futureDays ahead', () => {
    const window = futureWindow(new Date('2026-11-22T18:45:00.000Z'), 90);
    expect(new Date(window.startMs).toISOString()).toBe('2026-11-22T00:00:00.000Z');
    expect(new Date(window.endMs).toISOString()).toBe('2027-02-21T00:00:00.000Z');
    const today = futureWindow(new Date('2026-11-22T00:00:00.000Z'), 0);
    expect(today.endMs - today.startMs).toBe(86_400_000);
  });
});

describe('publicationRange (Profile B from/to)', () => {
  it('is open on a missing side and inclusive of the to day', () => {
    expect(publicationRange(undefined, undefined)).toEqual({ startMs: -Infinity, endMs: Infinity });
    expect(new Date(publicationRange(undefined, '2026-11-21').endMs).toISOString()).toBe('2026-11-22T00:00:00.000Z');
    expect(() => publicationRange('2026-11-22', '2026-11-21')).toThrow(ParameterProblem);
  });
});
