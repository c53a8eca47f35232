/**
 * Values made once per distinct byte string: `get(bytes, start, end, make)` hashes the bytes,
 * finds an earlier equal byte string by comparing bytes, and only for a byte string not seen
 * before decodes it (UTF-8) and calls `make` with the text. So a column whose values repeat
 * millions of times (issuer names, titles, CUSIPs) costs one string, and one call of whatever
 * `make` checks, per distinct value, not per row.
 *
 * The bytes of each distinct value are copied into one growing arena; entries are found by an
 * open-addressing table of 32-bit FNV-1a hashes. Nothing is ever removed.
 */
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
    let hash = 0x811c9dc5 | 0;
    for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
    const length = end - start;
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    for (;;) {
      const entry = this.slots[slot]! - 1;
      if (entry < 0) break;
      if (this.hashes[entry] === hash && this.lengths[entry] === length && this.sameBytes(entry, bytes, start, length))
        return this.values[entry]!;
      slot = (slot + 1) & mask;
    }
    const value = make(bytes.toString('utf8', start, end));
    this.add(hash, bytes, start, length, value);
    return value;
  }

  private sameBytes(entry: number, bytes: Buffer, start: number, length: number): boolean {
    const arena = this.arena;
    const offset = this.offsets[entry]!;
    for (let i = 0; i < length; i++) if (arena[offset + i] !== bytes[start + i]) return false;
    return true;
  }

  private add(hash: number, bytes: Buffer, start: number, length: number, value: T): void {
    const entry = this.values.length;
    if (entry === this.offsets.length) {
      this.offsets = grow(this.offsets, entry * 2);
      this.lengths = grow(this.lengths, entry * 2);
      this.hashes = grow(this.hashes, entry * 2);
    }
    if (this.arenaUsed + length > this.arena.length) {
      const arena = new Uint8Array(Math.max(this.arena.length * 2, this.arenaUsed + length));
      arena.set(this.arena.subarray(0, this.arenaUsed));
      this.arena = arena;
    }
    bytes.copy(this.arena, this.arenaUsed, start, start + length);
    this.offsets[entry] = this.arenaUsed;
    this.lengths[entry] = length;
    this.hashes[entry] = hash;
    this.arenaUsed += length;
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
