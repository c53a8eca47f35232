import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ingestCalendar } from '../../../src/ingest/calendar/index.js';
import { tempDir } from '../../helpers/cli.js';

/**
 * Field names as spreadsheets and hand-written JSON spell them: the same names in a CSV header and a
 * JSON or YAML key, a value under a name pdsnap does not know said in a note (never dropped without
 * a word), and a field written twice refused rather than one copy silently preferred.
 */

const CURATION = { license: 'CC-BY-4.0', verifiedAt: '2026-11-19T10:00:00.000Z' };
const ATTRIBUTION = { source: 'Example Macro Desk', url: 'https://data.example.org/calendar', text: 'Curated by the Example Macro Desk.' };
const EVENT = { eventName: 'CPI', scheduledAt: '2026-11-20T13:30:00Z', country: 'US', category: 'inflation', importance: 'high' };
const CSV_HEAD = 'eventName,scheduledAt,country,category,importance';
const CSV_ROW = 'CPI,2026-11-20T13:30:00Z,US,inflation,high';

let result: Awaited<ReturnType<typeof ingestCalendar>>;

beforeAll(async () => {
  const root = await tempDir('calendar-field-names');
  const dir = path.join(root, 'calendar');
  await mkdir(dir, { recursive: true });
  const json = (events: object[]) => JSON.stringify({ ...CURATION, attribution: ATTRIBUTION, events });
  const sidecar = `license: CC-BY-4.0\nverifiedAt: 2026-11-19T10:00:00.000Z\nattribution:\n  source: ${ATTRIBUTION.source}\n  url: ${ATTRIBUTION.url}\n  text: ${ATTRIBUTION.text}\n`;
  await writeFile(
    path.join(dir, 'snake.json'),
    json([{ ...EVENT, forecast_value: '0.3%', previous_value: '0.2%', actual_value: '0.4%', consensus: '0.3%', Notes: 'x' }]),
  );
  await writeFile(path.join(dir, 'twice.json'), json([{ ...EVENT, forecast: '0.3%', forecastValue: '0.4%' }]));
  await writeFile(path.join(dir, 'prior.csv'), `${CSV_HEAD},Forecast (consensus),Prior\n${CSV_ROW},0.3%,0.2%\n`);
  await writeFile(path.join(dir, 'prior.csv.meta.yaml'), sidecar);
  await writeFile(path.join(dir, 'twice.csv'), `${CSV_HEAD},Forecast,Forecast Value\n${CSV_ROW},0.3%,0.4%\n`);
  await writeFile(path.join(dir, 'twice.csv.meta.yaml'), sidecar);
  await writeFile(path.join(dir, 'url-only.csv'), `${CSV_HEAD},attributionUrl\n${CSV_ROW},https://agency.example/cpi\n`);
  await writeFile(path.join(dir, 'url-only.csv.meta.yaml'), sidecar);
  result = await ingestCalendar(root);
});

const record = (file: string) => result.records.find((r) => r.source === `calendar/${file}`)?.record;
const noteOf = (file: string) => result.notes.find((n) => n.source === `calendar/${file}`)?.message;
const rejectionOf = (file: string) => result.rejections.find((r) => r.source === `calendar/${file}`);

describe('calendar field names', () => {
  it('reads snake_case keys in JSON as the CSV header would, and names the keys it does not know', () => {
    expect(record('snake.json')).toMatchObject({ forecastValue: '0.3%', previousValue: '0.2%', actualValue: '0.4%' });
    expect(noteOf('snake.json')).toBe('not read, since no calendar field has these names: "consensus", "Notes"');
  });

  it('names the CSV columns it does not read', () => {
    expect(record('prior.csv')).toMatchObject({ eventName: 'CPI', forecastValue: '', previousValue: '' });
    expect(noteOf('prior.csv')).toBe('not read, since no calendar field has these names: "Forecast (consensus)", "Prior"');
  });

  it('refuses a field written twice under two names, in a JSON event and in a CSV header', () => {
    expect(rejectionOf('twice.json')).toMatchObject({
      location: 'events[0]',
      reason: 'forecastValue is written twice, as "forecast" and "forecastValue"',
    });
    expect(rejectionOf('twice.csv')).toMatchObject({
      location: 'row 1',
      reason: 'header row names forecastValue twice, as "Forecast" and "Forecast Value"',
    });
  });

  it('completes a row that fills only some attribution cells from the sidecar', () => {
    expect(rejectionOf('url-only.csv')).toBeUndefined();
    expect(record('url-only.csv')?.attribution).toEqual({ ...ATTRIBUTION, url: 'https://agency.example/cpi' });
  });
});
