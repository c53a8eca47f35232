import { FNV_OFFSET, FNV_PRIME, fnv1a } from './fnv1a.js';

/**
 * Values made once per distinct byte string: `get(bytes, start, end, make)` hashes the bytes,
 * finds an earlier equal byte string by comparing bytes, and only for a byte string not seen
 * before decodes it (UTF-8) and calls `make` with the text. So a column whose values repeat
 * millions of times (issuer names, titles, CUSIPs) costs one string, and one call of whatever
 * `make` checks, per distinct value, not per row.
 *
 * `getJoined` does the same for several fields of a row at once, keyed as if they were one byte
 * string joined by tabs (fields of a tab-separated line hold no tab, so the key is unambiguous):
 * one lookup per row for values that are used together.
 *
 * The bytes of each distinct value are copied into one growing arena; entries are found by an
 * open-addressing table of 32-bit FNV-1a hashes. Nothing is ever removed.
 */
const TAB = 0x09;

export class ByteValueCache<T> {
  private arena = new Uint8Array(1 << 16);
  private arenaUsed = 0;
  private offsets = new Int32Array(1024);
  private lengths = new Int32Array(1024);
  private hashes = new Int32Array(1024);
  private readonly values: T[] = [];
  /** Entry index + 1 per slot; 0 is an empty slot. */
  private slots = new Int32Array(2048);

  get size(): number {
    return this.values.length;
  }

  get(bytes: Buffer, start: number, end: number, make: (text: string) => T): T {
    const hash = fnv1a(bytes, start, end);
    const length = end - start;
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    for (;;) {
      const entry = this.slots[slot]! - 1;
      if (entry < 0) break;
      if (this.hashes[entry] === hash && this.lengths[entry] === length && this.sameBytes(entry, 0, bytes, start, end)) {
        return this.values[entry]!;
      }
      slot = (slot + 1) & mask;
    }
    const value = make(bytes.toString('utf8', start, end));
    const offset = this.reserve(length);
    bytes.copy(this.arena, offset, start, end);
    this.add(hash, offset, length, value);
    return value;
  }

  /**
   * `get` for the fields `bytes[bounds[2k], bounds[2k + 1])`, k < count, joined by tabs: `make`
   * gets the text of each field (decoded one by one, as `get` would).
   */
  getJoined(bytes: Buffer, bounds: Int32Array, count: number, make: (texts: readonly string[]) => T): T {
    let hash = FNV_OFFSET;
    let length = count - 1;
    for (let k = 0; k < count; k++) {
      if (k > 0) hash = Math.imul(hash ^ TAB, FNV_PRIME);
      const end = bounds[2 * k + 1]!;
      for (let i = bounds[2 * k]!; i < end; i++) hash = Math.imul(hash ^ bytes[i]!, FNV_PRIME);
      length += end - bounds[2 * k]!;
    }
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    for (;;) {
      const entry = this.slots[slot]! - 1;
      if (entry < 0) break;
      if (this.hashes[entry] === hash && this.lengths[entry] === length && this.sameJoined(entry, bytes, bounds, count)) {
        return this.values[entry]!;
      }
      slot = (slot + 1) & mask;
    }
    const texts: string[] = [];
    const offset = this.reserve(length);
    let at = offset;
    for (let k = 0; k < count; k++) {
      if (k > 0) this.arena[at++] = TAB;
      const start = bounds[2 * k]!;
      const end = bounds[2 * k + 1]!;
      texts.push(bytes.toString('utf8', start, end));
      at += bytes.copy(this.arena, at, start, end);
    }
    const value = make(texts);
    this.add(hash, offset, length, value);
    return value;
  }

  /** Whether the entry's bytes from `from` on start with `bytes[start, end)`. */
  private sameBytes(entry: number, from: number, bytes: Buffer, start: number, end: number): boolean {
    const arena = this.arena;
    const offset = this.offsets[entry]! + from - start;
    for (let i = start; i < end; i++) if (arena[offset + i] !== bytes[i]) return false;
    return true;
  }

  /** Lengths are known equal: the entry's bytes are the fields joined by tabs. */
  private sameJoined(entry: number, bytes: Buffer, bounds: Int32Array, count: number): boolean {
    let from = 0;
    for (let k = 0; k < count; k++) {
      if (k > 0 && this.arena[this.offsets[entry]! + from++] !== TAB) return false;
      const start = bounds[2 * k]!;
      const end = bounds[2 * k + 1]!;
      if (!this.sameBytes(entry, from, bytes, start, end)) return false;
      from += end - start;
    }
    return true;
  }

  /** Room for `length` more bytes at the end of the arena; returns where they go. */
  private reserve(length: number): number {
    if (this.arenaUsed + length > this.arena.length) {
      const arena = new Uint8Array(Math.max(this.arena.length * 2, this.arenaUsed + length));
      arena.set(this.arena.subarray(0, this.arenaUsed));
      this.arena = arena;
    }
    const offset = this.arenaUsed;
    this.arenaUsed += length;
    return offset;
  }

  private add(hash: number, offset: number, length: number, value: T): void {
    const entry = this.values.length;
    if (entry === this.offsets.length) {
      this.offsets = grow(this.offsets, entry * 2);
      this.lengths = grow(this.lengths, entry * 2);
      this.hashes = grow(this.hashes, entry * 2);
    }
    this.offsets[entry] = offset;
    this.lengths[entry] = length;
    this.hashes[entry] = hash;
    this.values.push(value);
    if ((entry + 1) * 2 > this.slots.length) this.rehash();
    else this.place(entry);
  }

  private place(entry: number): void {
    const mask = this.slots.length - 1;
    let slot = this.hashes[entry]! & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = entry + 1;
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    for (let entry = 0; entry < this.values.length; entry++) this.place(entry);
  }
}

function grow(array: Int32Array, length: number): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(length);
  grown.set(array);
  return grown;
}
