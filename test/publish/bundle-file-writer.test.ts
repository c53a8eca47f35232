import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BundleFileWriter, InvalidRecordError } from '../../src/publish/bundle-file-writer.js';
import { ContentCheck } from '../../src/model/content-rules.js';
import { tempDir } from '../helpers/cli.js';
import { article, calendarEvent } from '../helpers/records.js';

const lines = (...records: object[]) => Buffer.from(records.map((record) => `${JSON.stringify(record)}\n`).join(''));

describe('BundleFileWriter', () => {
  it('writes each part as handed over and runs the content rules on every line written, numbering records per resource', async () => {
    const directory = await tempDir('bundle-file-writer');
    const writer = new BundleFileWriter(directory, 'articles');
    const first = lines({ ...article('one'), title: 'Rates held' }, { ...article('two'), title: 'Apple (037833100) flat' });
    const second = lines({ ...article('three'), title: 'WPP ISIN#US92937A1025 up' });
    writer.write({ resource: 'articles', part: 0, records: 2, bytes: first });
    writer.write({ resource: 'articles', part: 1, records: 1, bytes: second });
    const written = writer.finish(['articles']);

    expect(written.files.map(({ path, records, bytes }) => ({ path, records, bytes }))).toEqual([
      { path: 'articles/00000.ndjson', records: 2, bytes: first.length },
      { path: 'articles/00001.ndjson', records: 1, bytes: second.length },
    ]);
    expect(await readFile(path.join(directory, 'articles/00001.ndjson'))).toEqual(second);
    // The state crosses threads as plain data; the checks made from it are the rules' results.
    const results = new ContentCheck('articles', structuredClone(written.content)).results({
      id: 'x',
      generatedAt: '2026-11-22T12:00:00.000Z',
    });
    const failed = Object.fromEntries(results.filter((r) => r.status === 'fail').map((r) => [r.rule, r.message]));
    expect(failed['content.identifiers']).toContain('articles record 1 field title: CUSIP 037833100 in the text');
    expect(failed['content.identifiers']).toContain('articles record 2 field title: ISIN US92937A1025 in the text');
    expect(failed['content.slugs']).toBeUndefined();
  });

  it("checks each line written against its record's schema, naming the resource and the record number", async () => {
    const directory = await tempDir('bundle-file-writer');
    const writer = new BundleFileWriter(directory, 'calendar');
    const event = calendarEvent('evt-0123456789abcdef', '2026-12-01T13:30:00.000Z');
    writer.write({ resource: 'events', part: 0, records: 1, bytes: lines(event) });
    expect(() => writer.write({ resource: 'events', part: 0, records: 1, bytes: lines({ ...event, importance: 'huge' }) })).toThrow(
      new InvalidRecordError('events', 1, '/importance must be equal to one of the allowed values'),
    );
    writer.abandon();
  });

  it('gives a resource without records one empty part', async () => {
    const directory = await tempDir('bundle-file-writer');
    const written = new BundleFileWriter(directory, 'calendar').finish(['events']);
    expect(written.files).toEqual([
      { path: 'events/00000.ndjson', bytes: 0, records: 0, sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' },
    ]);
  });
});
