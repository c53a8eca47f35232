import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ingestCalendar } from '../../../src/ingest/calendar/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/calendar/edge');

describe('calendar source problems', () => {
  it('rejects each unusable file once, with its location and reason, and ingests nothing from it', async () => {
    const { records, rejections } = await ingestCalendar(root);
    expect(records).toEqual([]);
    expect(rejections).toEqual([
      {
        source: 'calendar/broken-sidecar.json.meta.yaml',
        location: 'line 3',
        reason: expect.stringMatching(/^not valid YAML: .*; calendar\/broken-sidecar\.json was not ingested$/),
      },
      { source: 'calendar/broken.yaml', location: expect.stringMatching(/^line \d$/), reason: expect.stringMatching(/^not valid YAML/) },
      { source: 'calendar/no-country-column.csv', location: 'row 1', reason: 'header row lacks column country' },
      {
        source: 'calendar/unlicensed-export.json',
        location: 'file',
        reason: 'curation metadata missing in the sidecar: missing license (give it per file, in a sidecar, or per event)',
      },
    ]);
  });

  it('notes files it does not read instead of dropping them silently', async () => {
    const { notes, sources } = await ingestCalendar(root);
    expect(notes).toEqual([
      { source: 'calendar/README.txt', message: 'ignored: not a calendar source (.json, .yaml, .yml, .csv or .xml)' },
      { source: 'calendar/orphan.meta.yaml', message: 'ignored: sidecar without a matching source file' },
    ]);
    expect(sources.map((s) => s.path)).not.toContain('calendar/README.txt');
    expect(sources.map((s) => s.path)).toContain('calendar/broken-sidecar.json.meta.yaml');
  });
});
