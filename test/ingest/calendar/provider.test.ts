import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ingestCalendar } from '../../../src/ingest/calendar/index.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/calendar');
const XML = 'calendar/ff_calendar_thisweek.xml';
const JSON_EXPORT = 'calendar/ff_calendar_thisweek.json';

async function ingest() {
  const result = await ingestCalendar(path.join(FIXTURES, 'provider'));
  const find = (source: string, name: string) => result.records.find((r) => r.source === source && r.record.eventName === name)?.record;
  const rejection = (source: string, location: string) =>
    result.rejections.find((r) => r.source === source && r.location === location)?.reason;
  return { ...result, find, rejection };
}

describe('provider weekly exports', () => {
  it('converts XML wall-clock times in the sidecar zone to UTC across the end of daylight time', async () => {
    const { find } = await ingest();
    // America/New_York leaves daylight time on 2026-11-01: 08:30 is 12:30Z before and 13:30Z after.
    expect(find(XML, 'Core PCE Price Index m/m')?.scheduledAt).toBe('2026-10-30T12:30:00.000Z');
    expect(find(XML, 'Non-Farm Employment Change')?.scheduledAt).toBe('2026-11-06T13:30:00.000Z');
    expect(find(XML, 'ISM Manufacturing PMI')?.scheduledAt).toBe('2026-11-02T15:00:00.000Z');
  });

  it('maps currency to country, impact to importance, and title keywords to a category', async () => {
    const { find } = await ingest();
    expect(find(XML, 'Core PCE Price Index m/m')).toEqual({
      eventName: 'Core PCE Price Index m/m',
      scheduledAt: '2026-10-30T12:30:00.000Z',
      country: 'US',
      countryName: 'United States',
      category: 'inflation',
      importance: 'high',
      forecastValue: '0.2%',
      previousValue: '0.2%',
      actualValue: '',
      verifiedAt: '2026-10-28T06:00:00.000Z',
      license: 'Example Markets Data Agreement 2026',
      attribution: {
        source: 'Example Markets weekly export',
        url: 'https://markets.example.com/calendar',
        text: 'Calendar data: Example Markets.',
      },
    });
    expect(find(XML, 'Main Refinancing Rate Decision')).toMatchObject({
      country: 'EU',
      countryName: 'Euro Area',
      category: 'central-bank',
      scheduledAt: '2026-10-29T13:15:00.000Z',
    });
    expect(find(XML, 'Non-Farm Employment Change')?.category).toBe('employment');
    expect(find(XML, 'Trade Balance')).toMatchObject({ country: 'KR', importance: 'low', category: 'other' });
    expect(find(JSON_EXPORT, 'Cash Rate')).toMatchObject({ country: 'AU', importance: 'high', category: 'central-bank' });
    expect(find(JSON_EXPORT, 'SNB Chairman Schlegel Speaks')).toMatchObject({ country: 'CH', category: 'speech' });
    // No default category in the JSON sidecar and no keyword match: the documented fallback.
    expect(find(JSON_EXPORT, 'Retail Sales m/m')).toMatchObject({ country: 'NZ', category: 'other', importance: 'low' });
  });

  it('keeps holidays as low-importance "holiday" events and dates all-day and tentative ones at 00:00 local', async () => {
    const { find } = await ingest();
    expect(find(XML, 'Bank Holiday')).toMatchObject({
      country: 'JP',
      category: 'holiday',
      importance: 'low',
      scheduledAt: '2026-11-03T05:00:00.000Z',
    });
    // 2026-11-01 00:00 in New York is still daylight time (the change is at 02:00).
    expect(find(XML, 'Trade Balance')?.scheduledAt).toBe('2026-11-01T04:00:00.000Z');
  });

  it('reads JSON dates with their own offsets', async () => {
    const { find } = await ingest();
    expect(find(JSON_EXPORT, 'CPI y/y')).toMatchObject({
      scheduledAt: '2026-10-30T12:30:00.000Z',
      country: 'CA',
      countryName: 'Canada',
      category: 'inflation',
      importance: 'medium',
    });
    expect(find(JSON_EXPORT, 'Unemployment Rate')).toMatchObject({ scheduledAt: '2026-11-02T07:00:00.000Z', country: 'GB' });
    expect(find(JSON_EXPORT, 'Cash Rate')?.scheduledAt).toBe('2026-11-03T03:30:00.000Z');
  });

  it('drops provider urls and payload fields', async () => {
    const { records } = await ingest();
    const text = JSON.stringify(records.map((r) => r.record));
    expect(text).not.toContain('forexfactory');
    expect(Object.keys(records[0]!.record).sort()).toEqual([
      'actualValue',
      'attribution',
      'category',
      'country',
      'countryName',
      'eventName',
      'forecastValue',
      'importance',
      'license',
      'previousValue',
      'scheduledAt',
      'verifiedAt',
    ]);
  });

  it('rejects rows it cannot place or read, naming the value, and keeps the others', async () => {
    const { rejection, records } = await ingest();
    expect(rejection(XML, 'event 7')).toMatch(/^currency "All" cannot be placed on one country/);
    expect(rejection(XML, 'event 8')).toBe('impact "Non-Economic" is not High, Medium, Low or Holiday');
    expect(rejection(JSON_EXPORT, '[5]')).toBe('date "2026-11-04" is not an ISO 8601 date-time with an offset');
    expect(rejection(JSON_EXPORT, '[6]')).toMatch(/^currency "XAU"/);
    expect(records.filter((r) => r.source === XML)).toHaveLength(6);
    expect(records.filter((r) => r.source === JSON_EXPORT)).toHaveLength(5);
  });

  it('rejects a whole export that has no sidecar: its curation metadata is missing', async () => {
    const { rejection, records, sources } = await ingest();
    expect(rejection('calendar/unsorted/ff_calendar_nextweek.xml', 'file')).toMatch(/^curation metadata missing/);
    expect(rejection('calendar/unsorted/ff_calendar_nextweek.json', 'file')).toMatch(/^curation metadata missing/);
    expect(records.some((r) => r.source.startsWith('calendar/unsorted/'))).toBe(false);
    // Sidecars are provenance, not event sources.
    expect(sources.map((s) => s.path)).toContain('calendar/ff_calendar_thisweek.xml.meta.yaml');
    expect(records.some((r) => r.source.includes('.meta.'))).toBe(false);
  });
});
