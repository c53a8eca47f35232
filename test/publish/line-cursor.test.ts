import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResourceEntry } from '../../src/model/manifest.js';
import { LineCursor, PartChunks } from '../../src/publish/line-cursor.js';
import { BundleIntegrityError } from '../../src/publish/store-errors.js';
import { tempDir } from '../helpers/cli.js';

/** Writes each part's lines as a file; the entries say what the manifest would. */
async function writeParts(
  root: string,
  parts: string[][],
): Promise<{ entries: ResourceEntry[]; fileOf: (entry: ResourceEntry) => string }> {
  const entries: ResourceEntry[] = [];
  for (const [index, lines] of parts.entries()) {
    const text = lines.map((line) => `${line}\n`).join('');
    const file = `trades/${String(index).padStart(5, '0')}.ndjson`;
    await writeFile(path.join(root, String(index)), text);
    entries.push({
      path: file,
      bytes: Buffer.byteLength(text),
      records: lines.length,
      sha256: createHash('sha256').update(text).digest('hex'),
    });
  }
  return { entries, fileOf: (entry) => path.join(root, String(entries.indexOf(entry))) };
}

/** Every line a reader hands out, with the part and the number it says the line has. */
async function readAll(chunks: PartChunks): Promise<{ lines: [number, number, string][]; chunks: number }> {
  const lines: [number, number, string][] = [];
  let count = 0;
  for (let chunk = await chunks.next(); chunk !== null; chunk = await chunks.next()) {
    count += 1;
    const text = chunk.data.toString('utf8').split('\n');
    expect(text.pop()).toBe('');
    expect(text.length).toBe(chunk.lines);
    for (const segment of chunk.segments) {
      for (let i = 0; i < segment.lines; i += 1) lines.push([segment.part, segment.firstNumber + i, text[segment.firstLine + i]!]);
    }
  }
  return { lines, chunks: count };
}

describe('PartChunks', () => {
  it('runs a chunk on across parts, each line named by its part and its number there, long lines included', async () => {
    const root = await tempDir('part-chunks');
    const parts: string[][] = [];
    // 300 small parts (a chunk holds many), an empty one, then a line longer than a read (1 MiB).
    for (let p = 0; p < 300; p += 1)
      parts.push(Array.from({ length: 1 + (p % 7) }, (_, i) => `{"part":${p},"line":${i},"pad":"${'x'.repeat(p * 13)}"}`));
    parts.push([]);
    parts.push(['{"short":1}', `{"long":"${'y'.repeat(3 * 1024 * 1024)}"}`, '{"short":2}']);
    const { entries, fileOf } = await writeParts(root, parts);
    const { lines, chunks } = await readAll(new PartChunks('test', entries, fileOf));
    const expected = parts.flatMap((part, p) => part.map((line, i): [number, number, string] => [p, i + 1, line]));
    expect(lines).toEqual(expected);
    // About 1.2 MB in all: a handful of chunks, not one per part.
    expect(chunks).toBeLessThan(10);
  });

  it('names the part that fails its checks, also when a chunk began in the part before', async () => {
    const root = await tempDir('part-chunks');
    const parts = Array.from({ length: 20 }, (_, p) => Array.from({ length: 50 }, (_, i) => `{"part":${p},"line":${i}}`));
    for (const [damage, reason] of [
      [(entry: ResourceEntry) => ({ ...entry, sha256: '0'.repeat(64) }), /trades\/00007\.ndjson does not match its sha256/],
      [(entry: ResourceEntry) => ({ ...entry, records: entry.records + 1 }), /trades\/00007\.ndjson holds 50 records; manifest says 51/],
      [(entry: ResourceEntry) => ({ ...entry, bytes: entry.bytes - 1 }), /trades\/00007\.ndjson has \d+ bytes; manifest says \d+/],
    ] as const) {
      const { entries, fileOf } = await writeParts(root, parts);
      const damaged = entries.map((entry, p) => (p === 7 ? damage(entry) : entry));
      const chunks = new PartChunks('snap-1', damaged, (entry) => fileOf(entries[damaged.indexOf(entry)]!));
      const read = readAll(chunks);
      await expect(read).rejects.toThrow(BundleIntegrityError);
      await expect(read).rejects.toThrow(reason);
    }
    // A part whose last line has no line break.
    const { entries, fileOf } = await writeParts(root, parts);
    await writeFile(fileOf(entries[3]!), `${parts[3]!.join('\n')}`);
    const cut = entries.map((entry, p) => (p === 3 ? { ...entry, bytes: entry.bytes - 1 } : entry));
    await expect(readAll(new PartChunks('snap-1', cut, (entry) => fileOf(entries[cut.indexOf(entry)]!)))).rejects.toThrow(
      /trades\/00003\.ndjson does not end with a line break/,
    );
  });
});

describe('LineCursor', () => {
  it('hands out each line of several parts with its part and number', async () => {
    const root = await tempDir('line-cursor');
    const parts = Array.from({ length: 40 }, (_, p) => Array.from({ length: 3 }, (_, i) => `{"part":${p},"line":${i}}`));
    const { entries, fileOf } = await writeParts(root, parts);
    const cursor = new LineCursor('test', entries, fileOf);
    const seen: string[] = [];
    for (let line = await cursor.load(); line !== null; line = cursor.peek() ?? (await cursor.load())) {
      seen.push(`${line.entry.path}:${line.number}:${line.bytes.toString('utf8')}`);
      cursor.take();
    }
    expect(seen).toEqual(parts.flatMap((part, p) => part.map((line, i) => `${entries[p]!.path}:${i + 1}:${line}`)));
  });
});
