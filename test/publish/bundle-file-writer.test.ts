import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BundleFileWriter, type LineChunk } from '../../src/publish/bundle-file-writer.js';
import { tempDir } from '../helpers/cli.js';

const lines = (...records: object[]) => Buffer.from(records.map((record) => `${JSON.stringify(record)}\n`).join(''));
const chunk = (resource: string, bytes: Buffer): LineChunk => ({ resource, records: bytes.toString().split('\n').length - 1, bytes });

describe('BundleFileWriter', () => {
  it('ends a part before the line that would pass the part size, counting UTF-8 bytes of any width, across chunks', async () => {
    // One-, two-, three- and four-byte characters: a part size in characters would be wrong for all but the first.
    const names = ['Apple', 'Société Générale', '日本電信電話', 'Emoji 🚀 Corp', 'Ünïcödé ÄG', 'トヨタ自動車'];
    const records = Array.from({ length: 60 }, (_, i) => ({ i, name: names[i % names.length] }));
    const directory = await tempDir('bundle-file-writer');
    const writer = new BundleFileWriter(directory, 'articles', 100);
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
    const writer = new BundleFileWriter(directory, 'articles', 1000);
    const big = { name: 'x'.repeat(3000) };
    writer.write(chunk('articles', lines({ name: 'a' }, big, { name: 'b' })));
    const { files } = writer.finish(['articles']);
    const parts = await Promise.all(files.map((file) => readFile(path.join(directory, file.path), 'utf8')));
    expect(parts).toEqual(['{"name":"a"}\n', `${JSON.stringify(big)}\n`, '{"name":"b"}\n']);
  });

  it('refuses a chunk whose line count is not what it says, or whose last line has no line break', async () => {
    const writer = new BundleFileWriter(await tempDir('bundle-file-writer'), 'articles', 1000);
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
    const written = new BundleFileWriter(directory, 'calendar', 1000).finish(['events']);
    expect(written.files).toEqual([
      { path: 'events/00000.ndjson', bytes: 0, records: 0, sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' },
    ]);
  });
});
