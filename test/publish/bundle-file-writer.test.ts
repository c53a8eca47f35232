import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResourceEntry } from '../../src/model/manifest.js';
import { BundleFileWriter, type LineChunk } from '../../src/publish/bundle-file-writer.js';
import { PartBoundaries, partBoundaries } from '../../src/publish/part-boundaries.js';
import { tempDir } from '../helpers/cli.js';
import { seeded } from '../helpers/json-cases.js';

const lines = (...records: object[]) => Buffer.from(records.map((record) => `${JSON.stringify(record)}\n`).join(''));
const chunk = (resource: string, bytes: Buffer): LineChunk => ({ resource, records: bytes.toString().split('\n').length - 1, bytes });

describe('BundleFileWriter', () => {
  it('ends a part before the line that would pass the part size, counting UTF-8 bytes of any width, across chunks', async () => {
    // One-, two-, three- and four-byte characters: a part size in characters would be wrong for all but the first.
    const names = ['Apple', 'Société Générale', '日本電信電話', 'Emoji 🚀 Corp', 'Ünïcödé ÄG', 'トヨタ自動車'];
    const records = Array.from({ length: 60 }, (_, i) => ({ i, name: names[i % names.length] }));
    const directory = await tempDir('bundle-file-writer');
    const writer = new BundleFileWriter(directory, 'articles', partBoundaries(100));
    // Chunks of 7 lines: a chunk's lines go to more than one part, and a part to more than one chunk.
    for (let i = 0; i < records.length; i += 7) writer.write(chunk('articles', lines(...records.slice(i, i + 7))));
    const { files } = writer.finish(['articles']);

    const all = records.map((record) => `${JSON.stringify(record)}\n`);
    let next = 0;
    for (const [index, file] of files.entries()) {
      expect(file.path).toBe(`articles/${String(index).padStart(5, '0')}.ndjson`);
      const part = await readFile(path.join(directory, file.path), 'utf8');
      // Whole lines only, and as many as fit: the next line would have passed 100 bytes.
      expect(part).toBe(all.slice(next, next + file.records).join(''));
      expect(file.bytes).toBe(Buffer.byteLength(part));
      expect(file.bytes).toBeLessThanOrEqual(100);
      next += file.records;
      if (next < all.length) expect(file.bytes + Buffer.byteLength(all[next]!)).toBeGreaterThan(100);
    }
    expect(next).toBe(records.length);
  });

  it('puts a line larger than the part size in a part of its own', async () => {
    const directory = await tempDir('bundle-file-writer');
    const writer = new BundleFileWriter(directory, 'articles', partBoundaries(1000));
    const big = { name: 'x'.repeat(3000) };
    writer.write(chunk('articles', lines({ name: 'a' }, big, { name: 'b' })));
    const { files } = writer.finish(['articles']);
    const parts = await Promise.all(files.map((file) => readFile(path.join(directory, file.path), 'utf8')));
    expect(parts).toEqual(['{"name":"a"}\n', `${JSON.stringify(big)}\n`, '{"name":"b"}\n']);
  });

  it('refuses a chunk whose line count is not what it says, or whose last line has no line break', async () => {
    const writer = new BundleFileWriter(await tempDir('bundle-file-writer'), 'articles', partBoundaries(1000));
    expect(() => writer.write({ resource: 'articles', records: 1, bytes: lines({ a: 1 }, { a: 2 }) })).toThrow(
      'articles: a chunk said 1 lines and held 2',
    );
    expect(() => writer.write({ resource: 'articles', records: 1, bytes: Buffer.from('{"a":1}') })).toThrow(
      'articles: a chunk of lines does not end with a line break',
    );
    writer.abandon();
  });

  it('gives a resource without records one empty part', async () => {
    const directory = await tempDir('bundle-file-writer');
    const written = new BundleFileWriter(directory, 'calendar', partBoundaries(1000)).finish(['events']);
    expect(written.files).toEqual([
      { path: 'events/00000.ndjson', bytes: 0, records: 0, sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' },
    ]);
  });
});

/** Trade-like lines (about 160 to 580 bytes): one investor's lines share a long prefix, as in a bundle. */
function tradeLines(count: number, seed = 7): string[] {
  const random = seeded(seed);
  return Array.from({ length: count }, (_, i) => {
    const shares = Math.floor(random() * 1e6) * 100;
    const record = {
      action: ['new', 'added', 'trimmed', 'closed'][Math.floor(random() * 4)],
      investorName: `Investor Number ${Math.floor(i / 40)} Capital Management LP`,
      issuerName: 'ISSUER '.repeat(1 + Math.floor(random() * 60)).trim(),
      period: '2026-09-30',
      sharesAfter: shares,
      sharesChange: shares - Math.floor(random() * 1e6) * 100,
    };
    return `${JSON.stringify(record)}\n`;
  });
}

/** Small sizes, so that a few thousand lines make dozens of parts. */
const SMALL = new PartBoundaries({ minBytes: 4096, averageBytes: 8192, maxBytes: 64 * 1024 });

/** Writes `lines` as one resource, `chunkLines` lines to a chunk, and returns its parts and their bytes. */
async function writeLines(lines: readonly string[], boundaries: PartBoundaries, chunkLines: (index: number) => number = () => 100) {
  const directory = await tempDir('bundle-file-writer');
  const writer = new BundleFileWriter(directory, 'calendar', boundaries);
  for (let i = 0, n = 0; i < lines.length; n += 1) {
    const next = Math.min(lines.length, i + Math.max(1, chunkLines(n)));
    writer.write(chunk('events', Buffer.from(lines.slice(i, next).join(''))));
    i = next;
  }
  const { files } = writer.finish(['events']);
  const texts = await Promise.all(files.map((file) => readFile(path.join(directory, file.path), 'utf8')));
  return { files, texts };
}

/** How many parts the two lists share at their start and at their end, by digest. */
function shared(before: readonly ResourceEntry[], after: readonly ResourceEntry[]) {
  let head = 0;
  while (head < Math.min(before.length, after.length) && before[head]!.sha256 === after[head]!.sha256) head += 1;
  let tail = 0;
  while (tail < Math.min(before.length, after.length) - head && before.at(-1 - tail)!.sha256 === after.at(-1 - tail)!.sha256) tail += 1;
  return { head, tail, changedBefore: before.length - head - tail, changedAfter: after.length - head - tail };
}

/** The part that holds line `index`. */
function partOfLine(files: readonly ResourceEntry[], index: number): number {
  let lines = 0;
  return files.findIndex((file) => {
    lines += file.records;
    return index < lines;
  });
}

describe('BundleFileWriter: part boundaries by content', () => {
  const lines = tradeLines(4000);

  it("cuts whole lines into parts of at least the minimum (a resource's last aside) and at most the maximum", async () => {
    const { files, texts } = await writeLines(lines, SMALL);
    expect(files.length).toBeGreaterThan(30);
    expect(texts.join('')).toBe(lines.join(''));
    let next = 0;
    for (const [index, file] of files.entries()) {
      // Whole lines: the part is exactly the next `records` lines.
      expect(texts[index]).toBe(lines.slice(next, next + file.records).join(''));
      next += file.records;
      expect(file.bytes).toBeLessThanOrEqual(SMALL.maxBytes);
      if (index < files.length - 1) expect(file.bytes).toBeGreaterThanOrEqual(SMALL.minBytes);
    }
  });

  it('makes the same parts however the lines are cut into chunks', async () => {
    const { files } = await writeLines(lines, SMALL);
    const random = seeded(11);
    for (const chunkLines of [() => 1, () => 7, () => lines.length, () => 1 + Math.floor(random() * 300)]) {
      expect((await writeLines(lines, SMALL, chunkLines)).files).toEqual(files);
    }
  });

  it.each([
    ['inserted', (all: string[]) => all.toSpliced(2000, 0, tradeLines(1, 99)[0]!)],
    ['changed', (all: string[]) => all.toSpliced(2000, 1, all[2000]!.replace('"period":"2026-09-30"', '"period":"2026-06-30"'))],
    ['removed', (all: string[]) => all.toSpliced(2000, 1)],
  ])('changes only the part a line was %s in and at most a few after it: the rest are the same blobs', async (_, edit) => {
    const before = await writeLines(lines, SMALL);
    const after = await writeLines(edit(lines), SMALL);
    const { head, changedBefore, changedAfter } = shared(before.files, after.files);
    // Every part before the line's is the same; from at most two parts on, every part is again.
    expect(head).toBe(partOfLine(before.files, 2000));
    expect(changedBefore).toBeGreaterThanOrEqual(1);
    expect(changedBefore).toBeLessThanOrEqual(3);
    expect(changedAfter).toBeLessThanOrEqual(3);
  });

  it('cut by size alone (minBytes clamped to a small maxBytes), the same insertion changes many parts', async () => {
    // The contrast that shows the lines above can tell: parts cut by size shift after an insertion
    // until, by chance, a cut falls on the same line again (21 parts here).
    const bySize = partBoundaries(12 * 1024);
    expect(bySize.minBytes).toBe(12 * 1024);
    const before = await writeLines(lines, bySize);
    const after = await writeLines(lines.toSpliced(2000, 0, tradeLines(1, 99)[0]!), bySize);
    expect(shared(before.files, after.files).changedBefore).toBeGreaterThan(10);
  });

  it('ends a part before the line that would pass the maximum, and after a line whose hash says so once past the minimum', async () => {
    const capped = new PartBoundaries({ minBytes: 4096, averageBytes: 8192, maxBytes: 8192 });
    const { files } = await writeLines(lines, capped);
    let next = 0;
    const cuts = { bySize: 0, byContent: 0 };
    for (const file of files.slice(0, -1)) {
      next += file.records;
      expect(file.bytes).toBeLessThanOrEqual(8192);
      if (file.bytes + Buffer.byteLength(lines[next]!) > 8192) cuts.bySize += 1;
      else cuts.byContent += 1;
    }
    expect(cuts.bySize).toBeGreaterThan(5);
    expect(cuts.byContent).toBeGreaterThan(5);
  });

  it('makes parts of about minBytes + averageBytes whether the lines are short or long', async () => {
    // Lines of about 400 bytes and of 2.4 KB: were the chance to end a part the same for every line
    // rather than for every byte, the long lines' parts would come out about six times the size.
    const boundaries = new PartBoundaries({ minBytes: 16 * 1024, averageBytes: 32 * 1024, maxBytes: 1 << 20 });
    const long = tradeLines(4000, 5).map((line) => line.replace('"period"', `"positions":"${'p'.repeat(2000)}","period"`));
    for (const some of [tradeLines(24000, 3), long]) {
      const { files } = await writeLines(some, boundaries);
      const whole = files.slice(0, -1);
      const mean = whole.reduce((sum, file) => sum + file.bytes, 0) / whole.length;
      expect(mean).toBeGreaterThan(0.8 * 48 * 1024);
      expect(mean).toBeLessThan(1.2 * 48 * 1024);
    }
  });

  it('opens a part only for a line: no empty part follows one that ended with the last line', async () => {
    // Every line ends a part once past the minimum (each is longer than averageBytes).
    const eager = new PartBoundaries({ minBytes: 0, averageBytes: 1, maxBytes: 1 << 20 });
    const { files } = await writeLines(lines.slice(0, 10), eager, () => 3);
    expect(files.map((file) => file.records)).toEqual(Array(10).fill(1));
    expect(files.map((file) => file.path)).toEqual(files.map((_, i) => `events/${String(i).padStart(5, '0')}.ndjson`));
  });
});
