import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ingestCalendar } from '../../../src/ingest/calendar/index.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/calendar');
const root = path.join(FIXTURES, 'curated');

async function ingest() {
  const result = await ingestCalendar(root);
  const find = (source: string, name: string, country: string) =>
    result.records.find((r) => r.source === source && r.record.eventName === name && r.record.country === country)?.record;
  return { ...result, find };
}

describe('curated calendar files', () => {
  it('reads YAML with date + time + IANA zone, per event or per file, and names the country', async () => {
    const { find } = await ingest();
    expect(find('calendar/central-banks.yaml', 'FOMC Interest Rate Decision', 'US')).toMatchObject({
      scheduledAt: '2026-12-09T19:00:00.000Z',
      countryName: 'United States',
      importance: 'high',
      forecastValue: '3.50%',
      previousValue: '3.75%',
      actualValue: '',
      license: 'CC-BY-4.0',
      verifiedAt: '2026-11-20T09:00:00.000Z',
      attribution: {
        source: 'Example Macro Desk',
        url: 'https://data.example.org/economic-calendar',
        text: 'Economic calendar curated by the Example Macro Desk.',
      },
    });
    // `name` instead of eventName, a country name, importance 3, the file's Europe/London zone.
    expect(find('calendar/central-banks.yaml', 'BoE Bank Rate Decision', 'GB')).toMatchObject({
      scheduledAt: '2026-12-17T12:00:00.000Z',
      countryName: 'United Kingdom',
      importance: 'high',
    });
  });

  it('lets an event override the file license and verifiedAt, and keeps numeric values as text', async () => {
    const { find } = await ingest();
    expect(find('calendar/central-banks.yaml', 'BoJ Policy Rate Decision', 'JP')).toMatchObject({
      scheduledAt: '2026-12-18T03:00:00.000Z',
      license: 'Example Agency Terms 2026',
      verifiedAt: '2026-11-20T23:00:00.000Z',
      attribution: { source: 'Example Macro Desk' },
      forecastValue: '0.75',
      previousValue: '0.5',
    });
  });

  it('reads JSON with zoned scheduledAt instants and 1..3 importance', async () => {
    const { find } = await ingest();
    expect(find('calendar/releases.json', 'Consumer Price Index (YoY)', 'US')).toMatchObject({
      scheduledAt: '2026-11-12T13:30:00.000Z',
      actualValue: '2.8%',
      verifiedAt: '2026-11-19T14:00:00.000Z',
    });
    expect(find('calendar/releases.json', 'Consumer Price Index (YoY)', 'KR')).toMatchObject({
      scheduledAt: '2026-12-01T23:00:00.000Z',
      countryName: 'South Korea',
      importance: 'medium',
    });
  });

  it('reads CSV rows with curation from a sidecar, per-row verifiedAt and attribution columns winning', async () => {
    const { find, sources } = await ingest();
    expect(find('calendar/activity.csv', 'ISM Manufacturing PMI', 'US')).toMatchObject({
      scheduledAt: '2026-12-01T15:00:00.000Z',
      verifiedAt: '2026-11-17T10:00:00.000Z',
      license: 'CC-BY-4.0',
      forecastValue: '49.6',
      actualValue: '',
    });
    expect(find('calendar/activity.csv', 'Nonfarm Payrolls', 'US')).toMatchObject({
      actualValue: '164K',
      verifiedAt: '2026-11-06T14:00:00.000Z',
    });
    expect(find('calendar/activity.csv', 'Employment Change', 'AU')).toMatchObject({
      scheduledAt: '2026-12-17T00:30:00.000Z',
      attribution: {
        source: 'Example Labour Desk',
        url: 'https://labour.example.org',
        text: 'Figures checked by the Example Labour Desk, Sydney.',
      },
    });
    expect(sources.map((s) => s.path)).toContain('calendar/activity.meta.yaml');
  });

  it('rejects bad events with file, location and reason, and keeps the rest of the file', async () => {
    const { rejections, records } = await ingest();
    expect(rejections).toEqual(
      expect.arrayContaining([
        {
          source: 'calendar/central-banks.yaml',
          location: 'events[3]',
          reason: expect.stringContaining('unknown country "Atlantis"'),
        },
        {
          source: 'calendar/central-banks.yaml',
          location: 'events[4]',
          reason: expect.stringContaining('date "2026-02-30" is not a YYYY-MM-DD calendar date'),
        },
        {
          source: 'calendar/releases.json',
          location: 'events[2]',
          reason: expect.stringContaining('scheduledAt "2027-01-18 10:00" is not an ISO 8601 date-time with a zone'),
        },
        { source: 'calendar/unlicensed.json', location: '[1]', reason: expect.stringContaining('missing license') },
        {
          source: 'calendar/activity.csv',
          location: 'row 5',
          reason: 'expected 14 columns as in the header, found 9',
        },
      ]),
    );
    expect(rejections).toHaveLength(5);
    expect(records).toHaveLength(10);
    expect(records.find((r) => r.source === 'calendar/unlicensed.json')?.record.verifiedAt).toBe('2026-11-18T00:00:00.000Z');
    expect(records.find((r) => r.record.country === 'CA')?.location).toBe('row 6');
  });

  it('records the provenance of every file read, and nothing for a missing calendar folder', async () => {
    const { sources } = await ingest();
    expect(sources.map((s) => s.path)).toEqual([
      'calendar/activity.csv',
      'calendar/activity.meta.yaml',
      'calendar/central-banks.yaml',
      'calendar/releases.json',
      'calendar/unlicensed.json',
    ]);
    expect(sources.every((s) => /^[0-9a-f]{64}$/.test(s.sha256) && s.bytes > 0)).toBe(true);
    const empty = await ingestCalendar(path.join(FIXTURES, 'no-such-root'));
    expect(empty).toEqual({ records: [], rejections: [], notes: [], sources: [] });
  });
});
