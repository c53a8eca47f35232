import { describe, expect, it } from 'vitest';
import { lineHash, PartBoundaries, partBoundaries, partBytes } from '../../src/publish/part-boundaries.js';

describe('partBoundaries', () => {
  it('cuts parts of at least 512 KiB, about 1 MiB more on average, and at most 64 MiB by default', () => {
    const { minBytes, averageBytes, maxBytes } = partBoundaries(partBytes({}));
    expect({ minBytes, averageBytes, maxBytes }).toEqual({ minBytes: 512 * 1024, averageBytes: 1024 * 1024, maxBytes: 64 * 1024 * 1024 });
  });

  it('takes the largest part size from PDSNAP_PART_BYTES, and a minimum no larger than it', () => {
    expect(partBytes({ PDSNAP_PART_BYTES: '4096' })).toBe(4096);
    expect(() => partBytes({ PDSNAP_PART_BYTES: '0' })).toThrow('PDSNAP_PART_BYTES must be a whole number of bytes, at least 1 (got "0")');
    const tiny = partBoundaries(4096);
    expect([tiny.minBytes, tiny.maxBytes]).toEqual([4096, 4096]);
  });

  it('refuses sizes that are not whole numbers of bytes', () => {
    expect(() => new PartBoundaries({ minBytes: 10, averageBytes: 0, maxBytes: 100 })).toThrow(
      'part averageBytes must be a whole number of bytes, got 0',
    );
    expect(() => new PartBoundaries({ minBytes: 1.5, averageBytes: 10, maxBytes: 100 })).toThrow(
      'part minBytes must be a whole number of bytes, got 1.5',
    );
  });

  it('ends no part below the minimum, and every part past it after a line at least as long as the average', () => {
    const boundaries = new PartBoundaries({ minBytes: 100, averageBytes: 8, maxBytes: 1000 });
    const line = Buffer.from('{"a":"0123456789"}\n');
    const end = line.length - 1;
    expect(boundaries.endsPart(99, line, 0, end)).toBe(false);
    expect(boundaries.endsPart(100, line, 0, end)).toBe(true);
  });

  it('opens a new part for a line that would pass the maximum, unless the part is empty', () => {
    const boundaries = new PartBoundaries({ minBytes: 10, averageBytes: 10, maxBytes: 100 });
    expect(boundaries.opensPart(90, 10)).toBe(false);
    expect(boundaries.opensPart(90, 11)).toBe(true);
    expect(boundaries.opensPart(0, 500)).toBe(false);
  });
});

describe('lineHash', () => {
  const line = `{"investorName":"Atlas Crossing Capital LP","sharesAfter":82300,"sharesBefore":0,"sharesChange":82300,"titleOfClass":"COM"}`;

  it('depends on the line alone, not on where it lies in its chunk', () => {
    const alone = Buffer.from(line);
    const amid = Buffer.from(`{"a":1}\n${line}\n{"b":2}\n`);
    const start = amid.indexOf('{"investorName"');
    expect(lineHash(amid, start, start + alone.length)).toBe(lineHash(alone, 0, alone.length));
  });

  it("takes the line's length and its last 64 bytes: the shared start of a resource's lines does not decide", () => {
    const hash = (text: string) => lineHash(Buffer.from(text), 0, Buffer.byteLength(text));
    const otherStart = line.replace('Atlas Crossing', 'Orbit Crossing');
    const otherEnd = line.replace('"sharesChange":82300', '"sharesChange":82400');
    expect(hash(otherStart)).toBe(hash(line));
    expect(hash(otherEnd)).not.toBe(hash(line));
    expect(hash(`${line} `)).not.toBe(hash(line));
  });
});
