import { describe, expect, it } from 'vitest';
import type { PartChunk } from '../../src/publish/bundle-file-writer.js';
import { NdjsonPartsWriter } from '../../src/publish/resource-writer.js';

/** The chunks a writer hands over, copied (the writer reuses its buffer), and the parts they make. */
function collect() {
  const chunks: Array<Omit<PartChunk, 'bytes'> & { text: string }> = [];
  return {
    chunks,
    output: { write: (chunk: PartChunk) => chunks.push({ ...chunk, text: Buffer.from(chunk.bytes).toString('utf8') }) },
    parts(): string[] {
      const parts: string[] = [];
      for (const chunk of chunks) parts[chunk.part] = (parts[chunk.part] ?? '') + chunk.text;
      return parts;
    },
  };
}

const serialize = (record: unknown) => JSON.stringify(record);

describe('NdjsonPartsWriter', () => {
  it('ends a part before the record that would pass the part size, counting UTF-8 bytes of any width', () => {
    // One-, two-, three- and four-byte characters: a part size in characters would be wrong for all but the first.
    const names = ['Apple', 'Société Générale', '日本電信電話', 'Emoji 🚀 Corp', 'Ünïcödé ÄG', 'トヨタ自動車'];
    const records = Array.from({ length: 60 }, (_, i) => ({ i, name: names[i % names.length] }));
    const { output, parts, chunks } = collect();
    const writer = new NdjsonPartsWriter('trades', output, 100, serialize);
    for (const record of records) writer.write(record);
    writer.end();

    const lines = records.map((record) => `${JSON.stringify(record)}\n`);
    expect(parts().join('')).toBe(lines.join(''));
    let next = 0;
    for (const part of parts()) {
      // Whole lines only, and as many as fit: the next line would have passed 100 bytes.
      const taken = part.split('\n').length - 1;
      expect(part).toBe(lines.slice(next, next + taken).join(''));
      expect(Buffer.byteLength(part)).toBeLessThanOrEqual(100);
      next += taken;
      if (next < lines.length) expect(Buffer.byteLength(part) + Buffer.byteLength(lines[next]!)).toBeGreaterThan(100);
    }
    expect(next).toBe(records.length);
    for (const chunk of chunks) expect(chunk.records).toBe(chunk.text.split('\n').length - 1);
  });

  it('puts a record larger than the part size in a part of its own, and one larger than a chunk in one chunk', () => {
    const big = { name: 'x'.repeat(3_000_000) };
    const { output, parts, chunks } = collect();
    const writer = new NdjsonPartsWriter('investors', output, 1000, serialize);
    for (const record of [{ name: 'a' }, big, { name: 'b' }]) writer.write(record);
    writer.end();
    expect(parts()).toEqual(['{"name":"a"}\n', `${JSON.stringify(big)}\n`, '{"name":"b"}\n']);
    expect(chunks.map((chunk) => chunk.part)).toEqual([0, 1, 2]);
  });

  it('gives back the room a line longer than its buffer took, once that line is handed over', () => {
    const { output, parts } = collect();
    const writer = new NdjsonPartsWriter('articles', output, 64 * 1024 * 1024, serialize);
    const usual = writer.capacity;
    writer.write({ body: 'a' });
    writer.write({ body: 'x'.repeat(3_000_000) });
    expect(writer.capacity).toBe(usual);
    // The lines after it are encoded into the usual buffer, in order.
    writer.write({ body: 'b' });
    expect(writer.capacity).toBe(usual);
    writer.end();
    expect(parts()).toEqual([`{"body":"a"}\n${JSON.stringify({ body: 'x'.repeat(3_000_000) })}\n{"body":"b"}\n`]);
  });
});
