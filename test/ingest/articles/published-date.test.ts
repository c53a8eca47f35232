import { describe, expect, it } from 'vitest';
import { parsePublishedDate } from '../../../src/ingest/articles/published-date.js';

describe('parsePublishedDate', () => {
  it.each([
    ['a date alone is midnight UTC', '2026-11-20', '2026-11-20T00:00:00.000Z'],
    ['an offset date-time becomes the UTC instant', '2026-11-20T14:30:00-05:00', '2026-11-20T19:30:00.000Z'],
    ['a Jekyll date with a space and a colon-less offset', '2026-11-18 10:15:00 +0900', '2026-11-18T01:15:00.000Z'],
    ['an offset that crosses midnight moves the day', '2026-11-01T08:00:00+09:00', '2026-10-31T23:00:00.000Z'],
    ['fractions keep milliseconds', '2026-11-20T09:00:00.123456Z', '2026-11-20T09:00:00.123Z'],
    ['an RSS RFC 822 date with a numeric zone', 'Sat, 21 Nov 2026 13:05:00 -0500', '2026-11-21T18:05:00.000Z'],
    ['an RSS RFC 822 date with a named zone', 'Fri, 20 Nov 2026 09:17:00 EST', '2026-11-20T14:17:00.000Z'],
    ['an RSS date in GMT without a weekday', '21 Nov 2026 21:10:00 GMT', '2026-11-21T21:10:00.000Z'],
    ['a two-digit year under 50 in this century', 'Sat, 21 Nov 26 13:05:00 GMT', '2026-11-21T13:05:00.000Z'],
    ['a two-digit year from 50 in the last one (RFC 5322 4.3)', 'Fri, 31 Dec 99 23:00:00 GMT', '1999-12-31T23:00:00.000Z'],
  ])('%s', (_name, input, instant) => {
    expect(parsePublishedDate(input)).toEqual({ instant });
  });

  it.each([
    ['a date-time without an offset', '2026-11-20T10:00:00', /no UTC offset/],
    ['a day the month does not have', '2026-02-30', /day out of range/],
    ['prose', 'yesterday afternoon', /unrecognised date/],
    ['an hour past 23', '2026-11-20T24:00:00Z', /time out of range/],
    ['nothing', undefined, /missing date/],
    ['a bare number', 20261120, /date must be written as text/],
  ])('refuses %s', (_name, input, reason) => {
    const result = parsePublishedDate(input);
    expect('error' in result && result.error).toMatch(reason);
  });
});
