/**
 * Where a derivation worker puts the lines it hands to the main thread: one ring of shared memory
 * per worker, written by the worker and read (then released) by the main thread, so the ~650 MB of
 * lines of a full-size build cross threads without a buffer allocated per chunk. Allocated per
 * chunk, as transferred buffers were, they counted as fresh external memory on both threads, and
 * V8 answered every few dozen MB with a collection of the whole heap (the main thread's holds the
 * catalog's tables), for memory that was garbage as soon as it was written.
 *
 * The worker writes each chunk at the head, wrapping to the start when it does not fit before the
 * end (the bytes skipped count as the chunk's); `used` (shared) counts the bytes written and not yet
 * released. The main thread releases each chunk's bytes once written, in the order they were
 * written (the batches of one worker are written in the order it made them).
 */
export interface LineRing {
  buffer: SharedArrayBuffer;
  /** One Int32: bytes written and not released. */
  used: SharedArrayBuffer;
}

/** A chunk in the ring: where its bytes are, and what releasing it gives back (its bytes and any skipped before it). */
export interface RingPlace {
  at: number;
  bytes: number;
  footprint: number;
}

export function newLineRing(bytes: number): LineRing {
  return { buffer: new SharedArrayBuffer(bytes), used: new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT) };
}

/** How long the writer waits for room before it looks again whether the reader is still there. */
const WAIT_MS = 1000;

/** The worker's side: writes chunks into the ring, waiting for room; one batch's chunks at a time. */
export class LineRingWriter {
  private readonly bytes: Uint8Array;
  private readonly used: Int32Array;
  private head = 0;
  /** What the chunks of the batch being made take of the ring: only the main thread's release of older batches frees room. */
  private batchFootprint = 0;

  constructor(ring: LineRing) {
    this.bytes = new Uint8Array(ring.buffer);
    this.used = new Int32Array(ring.used);
  }

  /**
   * Copies a chunk into the ring, or answers null when it could never fit beside the batch's own
   * chunks (a batch larger than the ring): the caller then sends a copy of its own.
   */
  keep(chunk: Uint8Array): RingPlace | null {
    const size = this.bytes.length;
    const at = this.head + chunk.length <= size ? this.head : 0;
    const footprint = chunk.length + (at === 0 && this.head !== 0 ? size - this.head : 0);
    if (this.batchFootprint + footprint > size) return null;
    // The older batches' chunks are released as the main thread writes them, which it does in order.
    for (let used = Atomics.load(this.used, 0); used + footprint > size; used = Atomics.load(this.used, 0)) {
      Atomics.wait(this.used, 0, used, WAIT_MS);
    }
    this.bytes.set(chunk, at);
    Atomics.add(this.used, 0, footprint);
    this.head = at + chunk.length;
    this.batchFootprint += footprint;
    return { at, bytes: chunk.length, footprint };
  }

  /** The batch's chunks are handed over: they are now the main thread's to release. */
  endBatch(): void {
    this.batchFootprint = 0;
  }
}

/** The main thread's side: a view of a chunk, and its release once written. */
export class LineRingReader {
  private readonly bytes: Buffer;
  private readonly used: Int32Array;

  constructor(ring: LineRing) {
    this.bytes = Buffer.from(ring.buffer);
    this.used = new Int32Array(ring.used);
  }

  /** The chunk's bytes, valid until it is released. */
  view(place: RingPlace): Buffer {
    return this.bytes.subarray(place.at, place.at + place.bytes);
  }

  release(place: RingPlace): void {
    Atomics.sub(this.used, 0, place.footprint);
    Atomics.notify(this.used, 0);
  }
}

/**
 * The buffers under some views, each once (a buffer listed twice cannot be transferred). Each view
 * must own its buffer, never a slice of Node's shared pool: a transferred buffer is gone from the
 * sender.
 */
export function transferable(views: readonly Uint8Array[]): ArrayBuffer[] {
  return [...new Set(views.map((view) => view.buffer as ArrayBuffer))];
}
