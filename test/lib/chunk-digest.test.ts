import { createHash } from 'node:crypto';
import { truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { digestFileInChunksSync, findChunkMismatch, syncAndDigestFileInChunks } from '../../src/lib/chunk-digest.js';
import { tempDir } from '../helpers/cli.js';

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const CHUNK = 1000;

/** 2,500 bytes of a pattern that differs in every chunk: three chunks, the last one short. */
function content(): Buffer {
  const bytes = Buffer.alloc(2500);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + (i >> 8)) & 0xff;
  return bytes;
}

async function fileWith(name: string, bytes: Buffer): Promise<string> {
  const file = path.join(await tempDir('chunk-digest'), name);
  await writeFile(file, bytes);
  return file;
}

describe('digestFileInChunksSync', () => {
  it('gives the whole-file digest and one digest per chunk, the last chunk short', async () => {
    const bytes = content();
    const digest = digestFileInChunksSync(await fileWith('three.bin', bytes), CHUNK);
    expect(digest).toEqual({
      bytes: 2500,
      sha256: sha256(bytes),
      chunks: { bytes: CHUNK, sha256: [sha256(bytes.subarray(0, 1000)), sha256(bytes.subarray(1000, 2000)), sha256(bytes.subarray(2000))] },
    });
  });

  it('gives no chunk for an empty file and exactly n for a file of n whole chunks', async () => {
    expect(digestFileInChunksSync(await fileWith('empty.bin', Buffer.alloc(0)), CHUNK).chunks.sha256).toEqual([]);
    const two = content().subarray(0, 2000);
    expect(digestFileInChunksSync(await fileWith('two.bin', two), CHUNK).chunks.sha256).toEqual([
      sha256(two.subarray(0, 1000)),
      sha256(two.subarray(1000)),
    ]);
  });
});

describe('syncAndDigestFileInChunks', () => {
  it('gives what digestFileInChunksSync gives, its chunks hashed on a helper thread past one chunk', async () => {
    const bytes = content();
    let helpers = 0;
    const started = () => {
      helpers += 1;
    };
    process.on('worker', started);
    try {
      for (const [name, data, helpersAfter] of [
        ['empty.bin', Buffer.alloc(0), 0],
        ['one-byte.bin', bytes.subarray(0, 1), 0],
        ['one-whole.bin', bytes.subarray(0, 1000), 0],
        ['two-whole.bin', bytes.subarray(0, 2000), 1],
        ['three.bin', bytes, 2],
      ] as const) {
        const file = await fileWith(name, data);
        const digest = syncAndDigestFileInChunks(file, CHUNK);
        expect(digest, name).toEqual(digestFileInChunksSync(file, CHUNK));
        expect(digest.sha256, name).toBe(sha256(data));
        // A file of one chunk is hashed once, here: its chunk's digest is the whole file's.
        await new Promise((resolve) => setImmediate(resolve)); // Node announces a new Worker on a later tick
        expect(helpers, name).toBe(helpersAfter);
      }
    } finally {
      process.off('worker', started);
    }
  });
});

describe('findChunkMismatch', () => {
  it('accepts the file it was computed from, with lanes hashing chunks out of order', async () => {
    const file = await fileWith('intact.bin', content());
    const { bytes, chunks } = digestFileInChunksSync(file, CHUNK);
    expect(await findChunkMismatch(file, bytes, chunks)).toBeNull();
  });

  it('names the byte range of a damaged chunk', async () => {
    const bytes = content();
    const file = await fileWith('damaged.bin', bytes);
    const { chunks } = digestFileInChunksSync(file, CHUNK);
    bytes.writeUInt8(bytes.readUInt8(1500) ^ 0x01, 1500);
    await writeFile(file, bytes);
    expect(await findChunkMismatch(file, 2500, chunks)).toBe('does not match its sha256 in bytes 1000 to 1999');
  });

  it('refuses a file of another size, and a digest list that does not cover the file', async () => {
    const file = await fileWith('short.bin', content());
    const { chunks } = digestFileInChunksSync(file, CHUNK);
    await truncate(file, 2400);
    expect(await findChunkMismatch(file, 2500, chunks)).toBe('has 2400 bytes; manifest says 2500');
    expect(await findChunkMismatch(file, 2400, { bytes: CHUNK, sha256: chunks.sha256.slice(0, 2) })).toBe(
      'lists 2 chunk digests for 3 chunks',
    );
  });

  it('throws a read error instead of calling it a mismatch', async () => {
    const missing = path.join(await tempDir('chunk-digest'), 'missing.bin');
    await expect(findChunkMismatch(missing, 1, { bytes: CHUNK, sha256: [sha256(Buffer.alloc(1))] })).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});
