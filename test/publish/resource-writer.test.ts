import { describe, expect, it } from 'vitest';
import type { LineChunk } from '../../src/publish/bundle-file-writer.js';
import { ContentCheck } from '../../src/model/content-rules.js';
import { InvalidRecordError, NdjsonLineWriter, RecordChecks } from '../../src/publish/resource-writer.js';
import stableStringify from 'fast-json-stable-stringify';
import { resourceSerializer } from '../../src/publish/compiled-canonical.js';
import { resourceEncoder } from '../../src/publish/compiled-canonical-bytes.js';
import { article, calendarEvent } from '../helpers/records.js';

/** The chunks a writer hands over, copied (the writer reuses its buffer). */
function collect() {
  const chunks: Array<Omit<LineChunk, 'bytes'> & { text: string }> = [];
  return {
    chunks,
    output: { write: (chunk: LineChunk) => chunks.push({ ...chunk, text: Buffer.from(chunk.bytes).toString('utf8') }) },
    text: () => chunks.map((chunk) => chunk.text).join(''),
  };
}

const serialize = (record: unknown) => JSON.stringify(record);
/** Checks that accept anything (their own tests are below). */
const lenient = () => ({ inspect: () => {} }) as unknown as RecordChecks;

describe('NdjsonLineWriter', () => {
  it('hands over whole lines in chunks of about a megabyte, each chunk saying how many lines it holds', () => {
    const { output, chunks, text } = collect();
    const writer = new NdjsonLineWriter('trades', output, lenient(), serialize);
    const records = Array.from({ length: 5000 }, (_, i) => ({ i, name: `Société ${i} ${'x'.repeat(400)}` }));
    for (const record of records) writer.write(record);
    writer.end();
    expect(text()).toBe(records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(chunk.text.endsWith('\n')).toBe(true);
      expect(chunk.records).toBe(chunk.text.split('\n').length - 1);
    }
  });

  it('moves a line that does not fit the rest of its buffer to the front, after handing over the lines before it', () => {
    const { output, chunks, text } = collect();
    const encode = resourceEncoder('articles', 'articles');
    const writer = new NdjsonLineWriter('articles', output, lenient(), resourceSerializer('articles', 'articles'), encode);
    // 0.9 MB, then 1.5 MB with two-byte characters (3 MB of UTF-8): neither fits behind the other in 2 MiB.
    const records = [
      { ...article('one'), content: 'x'.repeat(900_000) },
      { ...article('two'), content: 'é'.repeat(1_500_000) },
      article('three'),
    ];
    for (const record of records) writer.write(record);
    writer.end();
    expect(text()).toBe(records.map((record) => `${stableStringify(record)}\n`).join(''));
    expect(chunks.map((chunk) => chunk.records)).toEqual([1, 1, 1]);
  });

  it('gives back the room a line longer than its buffer took, once that line is handed over', () => {
    const { output, text } = collect();
    const writer = new NdjsonLineWriter('articles', output, lenient(), serialize);
    const usual = writer.capacity;
    writer.write({ body: 'a' });
    writer.write({ body: 'x'.repeat(3_000_000) });
    expect(writer.capacity).toBe(usual);
    // The lines after it are encoded into the usual buffer, in order.
    writer.write({ body: 'b' });
    expect(writer.capacity).toBe(usual);
    writer.end();
    expect(text()).toBe(`{"body":"a"}\n${JSON.stringify({ body: 'x'.repeat(3_000_000) })}\n{"body":"b"}\n`);
  });

  it("checks each record against its schema before it becomes a line, naming the resource and the record's number", () => {
    const { output, text } = collect();
    const writer = new NdjsonLineWriter('events', output, new RecordChecks('calendar', new ContentCheck('calendar')), serialize);
    const event = calendarEvent('evt-0123456789abcdef', '2026-12-01T13:30:00.000Z');
    writer.write(event);
    expect(() => writer.write({ ...event, importance: 'huge' })).toThrow(
      new InvalidRecordError('events', 1, '/importance must be equal to one of the allowed values'),
    );
    writer.end();
    expect(text()).toBe(`${JSON.stringify(event)}\n`);
  });

  it('runs the content rules on every record written, numbering records per resource', () => {
    const content = new ContentCheck('articles');
    const writer = new NdjsonLineWriter('articles', collect().output, new RecordChecks('articles', content), serialize);
    writer.write({ ...article('one'), title: 'Rates held' });
    writer.write({ ...article('two'), title: 'Apple (037833100) flat' });
    writer.write({ ...article('three'), title: 'WPP ISIN#US92937A1025 up' });
    writer.end();
    const results = content.results({ id: 'x', generatedAt: '2026-11-22T12:00:00.000Z' });
    const failed = Object.fromEntries(results.filter((r) => r.status === 'fail').map((r) => [r.rule, r.message]));
    expect(failed['content.identifiers']).toContain('articles record 1 field title: CUSIP 037833100 in the text');
    expect(failed['content.identifiers']).toContain('articles record 2 field title: ISIN US92937A1025 in the text');
    expect(failed['content.slugs']).toBeUndefined();
  });

  it('numbers the records of a batch checked elsewhere on from those checked here, in findings and in a schema failure', () => {
    const content = new ContentCheck('articles');
    const checks = new RecordChecks('articles', content);
    const writer = new NdjsonLineWriter('articles', collect().output, checks, serialize);
    writer.write({ ...article('one'), title: 'Apple (037833100) flat' });
    writer.write(article('two'));
    // A batch as a worker makes it: its own checks, its records numbered from 0.
    const theirs = new ContentCheck('articles');
    const elsewhere = new NdjsonLineWriter('articles', collect().output, new RecordChecks('articles', theirs), serialize);
    elsewhere.write(article('three'));
    elsewhere.write({ ...article('four'), title: 'WPP ISIN#US92937A1025 up' });
    elsewhere.end();
    checks.absorb({ lines: [{ resource: 'articles', records: 2, bytes: new Uint8Array() }], content: structuredClone(theirs.state()) });
    const failed = content.results({ id: 'x', generatedAt: '2026-11-22T12:00:00.000Z' }).find((r) => r.rule === 'content.identifiers')!;
    expect(failed.message).toContain('articles record 0 field title: CUSIP 037833100 in the text');
    expect(failed.message).toContain('articles record 3 field title: ISIN US92937A1025 in the text');
    // The next record checked here is number 4.
    expect(() => writer.write({ ...article('five'), slug: 'Not A Slug', locale: 'xx' })).toThrow(/^articles record 4: /);
    expect(() =>
      checks.absorb({
        lines: [],
        content: new ContentCheck('articles').state(),
        invalid: { resource: 'articles', index: 1, reason: '/ bad' },
      }),
    ).toThrow(new InvalidRecordError('articles', 5, '/ bad'));
  });
});
