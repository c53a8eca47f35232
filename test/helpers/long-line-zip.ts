import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';

/**
 * The Form 13F data set ZIP of the hostile case `dataset-zip-1gib-line` (test/helpers/hostile-inputs.ts),
 * written in milliseconds instead of seconds: the fixture's members, with INFOTABLE.tsv replaced by
 * one line of `lineBytes` bytes ('A', no line break), deflated to about a thousandth of that.
 *
 * The case's own plant streams the whole line through yazl (zlib deflate and a JavaScript CRC-32
 * of every byte): 10 s or more of CPU. Here the line is made of 1 MiB blocks; each block, deflated
 * with a full flush (which resets the compressor), gives the same bytes, so the member's deflate
 * stream is those bytes repeated, then an empty final block; its CRC-32 is combined from the
 * block's. What a reader inflates is the same line, byte for byte.
 */

const BLOCK_BYTES = 1024 * 1024;
const FIXTURE_MEMBERS = ['SUBMISSION.tsv', 'COVERPAGE.tsv', 'SUMMARYPAGE.tsv', 'INFOTABLE.tsv'];

interface Member {
  name: string;
  method: 0 | 8;
  crc32: number;
  compressed: Buffer[];
  compressedSize: number;
  size: number;
}

export async function writeLongLineDatasetZip(file: string, fixture: string, lineBytes: number): Promise<void> {
  if (lineBytes % BLOCK_BYTES !== 0 || lineBytes >= 2 ** 32) throw new Error('lineBytes: a whole number of MiB, under 4 GiB');
  const members: Member[] = [];
  for (const name of FIXTURE_MEMBERS) {
    const entry = `2026q3_form13f/${name}`;
    if (name === 'INFOTABLE.tsv') members.push(longLine(entry, lineBytes));
    else {
      const data = await readFile(path.join(fixture, name));
      const compressed = zlib.deflateRawSync(data);
      members.push({
        name: entry,
        method: 8,
        crc32: zlib.crc32(data),
        compressed: [compressed],
        compressedSize: compressed.length,
        size: data.length,
      });
    }
  }
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, zipOf(members));
}

function longLine(name: string, lineBytes: number): Member {
  const block = Buffer.alloc(BLOCK_BYTES, 'A');
  const deflate = zlib.deflateRawSync(block, { finishFlush: zlib.constants.Z_FULL_FLUSH });
  // The empty final block that ends a raw deflate stream.
  const end = zlib.deflateRawSync(Buffer.alloc(0));
  const blocks = lineBytes / BLOCK_BYTES;
  const blockCrc = zlib.crc32(block);
  let crc = blockCrc;
  for (let done = 1; done < blocks; done++) crc = crc32Combine(crc, blockCrc, BLOCK_BYTES);
  return {
    name,
    method: 8,
    crc32: crc,
    compressed: [...Array<Buffer>(blocks).fill(deflate), end],
    compressedSize: blocks * deflate.length + end.length,
    size: lineBytes,
  };
}

/** A ZIP of the members as given: local headers with known sizes, then the central directory. */
function zipOf(members: Member[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const member of members) {
    const name = Buffer.from(member.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(member.method, 8);
    local.writeUInt16LE(0, 10); // time
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    local.writeUInt32LE(member.crc32, 14);
    local.writeUInt32LE(member.compressedSize, 18);
    local.writeUInt32LE(member.size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    parts.push(local, name, ...member.compressed);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4); // version made by
    local.copy(entry, 6, 4, 30); // version needed .. name length
    entry.writeUInt16LE(0, 30); // extra
    entry.writeUInt16LE(0, 32); // comment
    entry.writeUInt16LE(0, 34); // disk
    entry.writeUInt16LE(0, 36); // internal attributes
    entry.writeUInt32LE(0, 38); // external attributes
    entry.writeUInt32LE(offset, 42);
    central.push(entry, name);
    offset += local.length + name.length + member.compressedSize;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, directory, end]);
}

/** zlib's crc32_combine: the CRC-32 of A followed by B, from those of A and B and B's length. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (lengthB <= 0) return crcA;
  const odd = new Array<number>(32);
  const even = new Array<number>(32);
  odd[0] = 0xedb88320;
  for (let n = 1, row = 1; n < 32; n++, row = (row << 1) >>> 0) odd[n] = row;
  square(even, odd);
  square(odd, even);
  let crc = crcA >>> 0;
  let length = lengthB;
  do {
    square(even, odd);
    if (length % 2 === 1) crc = times(even, crc);
    length = Math.floor(length / 2);
    if (length === 0) break;
    square(odd, even);
    if (length % 2 === 1) crc = times(odd, crc);
    length = Math.floor(length / 2);
  } while (length !== 0);
  return (crc ^ crcB) >>> 0;
}

function times(matrix: number[], vector: number): number {
  let sum = 0;
  for (let i = 0, v = vector >>> 0; v !== 0; i++, v >>>= 1) if (v & 1) sum ^= matrix[i]!;
  return sum >>> 0;
}

function square(result: number[], matrix: number[]): void {
  for (let n = 0; n < 32; n++) result[n] = times(matrix, matrix[n]!);
}
