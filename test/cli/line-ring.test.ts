import { describe, expect, it } from 'vitest';
import { LineRingReader, LineRingWriter, newLineRing } from '../../src/cli/pipeline/line-ring.js';

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

describe('the ring a derivation worker hands its lines over in', () => {
  it('gives the main thread each chunk as written, wraps at its end, and takes the room back as chunks are released', () => {
    const ring = newLineRing(100);
    const writer = new LineRingWriter(ring);
    const reader = new LineRingReader(ring);
    const first = writer.keep(bytes(40, 1))!;
    const second = writer.keep(bytes(40, 2))!;
    writer.endBatch();
    expect([first.at, second.at]).toEqual([0, 40]);
    expect([...reader.view(first)]).toEqual([...bytes(40, 1)]);
    reader.release(first);
    // 30 bytes do not fit between 80 and 100: the chunk goes to the start, and the 20 skipped are its too.
    const third = writer.keep(bytes(30, 3))!;
    expect(third).toEqual({ at: 0, bytes: 30, footprint: 50 });
    expect([...reader.view(second)]).toEqual([...bytes(40, 2)]);
    expect([...reader.view(third)]).toEqual([...bytes(30, 3)]);
    reader.release(second);
    reader.release(third);
    expect(new Int32Array(ring.used)[0]).toBe(0);
  });

  it('answers null for a chunk that could never fit beside its own batch, which then goes as a copy of its own', () => {
    const ring = newLineRing(100);
    const writer = new LineRingWriter(ring);
    expect(writer.keep(bytes(101, 1))).toBeNull();
    expect(writer.keep(bytes(60, 1))).not.toBeNull();
    // The batch holds 60 of 100 bytes: 50 more can never fit while it is made.
    expect(writer.keep(bytes(50, 2))).toBeNull();
    expect(writer.keep(bytes(40, 2))).not.toBeNull();
  });
});
