import { describe, expect, it } from 'vitest';
import { isTimeZone, zonedToInstant } from '../../../src/ingest/calendar/scheduled-time.js';

describe('time zone names of calendar sources', () => {
  it('knows IANA names and refuses others, the same way when asked again', () => {
    for (let round = 0; round < 2; round++) {
      expect(isTimeZone('America/New_York')).toBe(true);
      expect(isTimeZone('UTC')).toBe(true);
      expect(isTimeZone('Mars/Olympus_Mons')).toBe(false);
      expect(isTimeZone('')).toBe(false);
    }
  });

  it('answers right past the number of names it keeps (a source naming thousands of bogus zones)', () => {
    for (let i = 0; i < 600; i++) expect(isTimeZone(`Nowhere/Zone_${i}`)).toBe(false);
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('Nowhere/Zone_1')).toBe(false);
  });

  it('converts with the zone named, and refuses an unknown one naming it', () => {
    const date = { year: 2026, month: 7, day: 1 };
    const clock = { hour: 8, minute: 30, second: 0 };
    expect(zonedToInstant(date, clock, 'America/New_York')).toBe('2026-07-01T12:30:00.000Z');
    expect(() => zonedToInstant(date, clock, 'Nowhere/Zone_1')).toThrow(/unknown time zone .*Nowhere\/Zone_1/);
  });
});
