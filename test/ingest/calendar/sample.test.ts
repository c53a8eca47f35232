import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { deriveCalendar } from '../../../src/derive/calendar.js';
import { ingestCalendar } from '../../../src/ingest/calendar/index.js';
import { writeSampleCalendar } from '../../../src/sample/calendar.js';
import { tempDir } from '../../helpers/cli.js';

const NOW = new Date('2026-11-22T10:15:00.000Z');
const DAY = 86_400_000;

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, full)] = await readFile(full, 'utf8');
  }
  return out;
}

describe('sample calendar', () => {
  it('is byte-identical for the same now and different for another now', async () => {
    const [a, b, c] = [await tempDir('cal-a'), await tempDir('cal-b'), await tempDir('cal-c')];
    await writeSampleCalendar(a, NOW);
    await writeSampleCalendar(b, new Date(NOW));
    await writeSampleCalendar(c, new Date(NOW.getTime() + 7 * DAY));
    const first = await snapshot(a);
    expect(Object.keys(first).sort()).toEqual([
      'calendar/activity.csv',
      'calendar/activity.csv.meta.yaml',
      'calendar/central-banks.yaml',
      'calendar/provider/ff_calendar_thisweek.json',
      'calendar/provider/ff_calendar_thisweek.json.meta.yaml',
      'calendar/provider/ff_calendar_thisweek.xml',
      'calendar/provider/ff_calendar_thisweek.xml.meta.yaml',
      'calendar/releases.json',
    ]);
    expect(await snapshot(b)).toEqual(first);
    expect(await snapshot(c)).not.toEqual(first);
  });

  it('ingests without a rejection and covers the countries, categories and months the API needs', async () => {
    const dir = await tempDir('cal-ingest');
    await writeSampleCalendar(dir, NOW);
    const ingested = await ingestCalendar(dir);
    expect(ingested.rejections).toEqual([]);
    expect(ingested.notes).toEqual([
      {
        source: 'calendar/provider/ff_calendar_thisweek.xml',
        message: 'provider XML dates and times read as UTC (the default for provider-xml; a sidecar timeZone overrides it)',
      },
    ]);
    const derived = deriveCalendar(ingested.records, NOW);
    expect(derived.rejections).toEqual([]);
    const { records, facts } = derived;
    expect(records.length).toBeGreaterThan(150);

    for (const country of ['US', 'EU', 'GB', 'JP', 'KR', 'CN', 'CA', 'AU']) {
      const categories = new Set(records.filter((r) => r.country === country).map((r) => r.category));
      expect({
        country,
        centralBank: categories.has('central-bank'),
        inflation: categories.has('inflation'),
        kinds: categories.size >= 4,
      }).toEqual({ country, centralBank: true, inflation: true, kinds: true });
    }
    expect(new Set(records.map((r) => r.category))).toEqual(
      new Set(['central-bank', 'inflation', 'gdp', 'employment', 'pmi', 'retail-sales', 'holiday', 'sentiment', 'energy', 'earnings']),
    );

    const coverage = Date.parse(`${facts.coverageThrough}T00:00:00Z`);
    expect(coverage - NOW.getTime()).toBeGreaterThan(100 * DAY);
    const verified = Date.parse(facts.oldestVerifiedAt!);
    expect(verified).toBeLessThan(NOW.getTime());
    expect(NOW.getTime() - verified).toBeLessThan(5 * DAY);

    const past = records.filter((r) => Date.parse(r.scheduledAt) < NOW.getTime() && r.category !== 'holiday');
    const curatedPast = past.filter((r) => r.attribution.source === 'Example Macro Desk');
    expect(curatedPast.length).toBeGreaterThan(10);
    expect(curatedPast.every((r) => r.actualValue !== '')).toBe(true);
    expect(records.filter((r) => Date.parse(r.scheduledAt) > NOW.getTime()).every((r) => r.actualValue === '')).toBe(true);
    expect(Date.parse(records[0]!.scheduledAt)).toBeGreaterThanOrEqual(NOW.getTime() - 22 * DAY);
  });

  it('puts provider events in the week of now, from both the JSON and the XML export', async () => {
    const dir = await tempDir('cal-week');
    await writeSampleCalendar(dir, NOW);
    const { records } = await ingestCalendar(dir);
    const provider = records.filter((r) => r.source.startsWith('calendar/provider/'));
    expect(new Set(provider.map((r) => r.source))).toEqual(
      new Set(['calendar/provider/ff_calendar_thisweek.json', 'calendar/provider/ff_calendar_thisweek.xml']),
    );
    // 2026-11-22 is a Sunday: its week runs from Monday 2026-11-16, in UTC for the XML export
    // (whose dates and times are UTC) and in New York time for the JSON one.
    for (const { record, source } of provider) {
      const monday = Date.parse(source.endsWith('.xml') ? '2026-11-16T00:00:00.000Z' : '2026-11-16T05:00:00.000Z');
      expect(Date.parse(record.scheduledAt)).toBeGreaterThanOrEqual(monday);
      expect(Date.parse(record.scheduledAt)).toBeLessThan(monday + 5 * DAY);
    }
    // The XML export writes UTC: a 10:00 New York release is listed at 3:00pm and read as 15:00Z.
    const confidence = provider.find((r) => r.record.eventName === 'CB Consumer Confidence');
    expect(confidence?.record.scheduledAt).toBe('2026-11-17T15:00:00.000Z');
  });
});
