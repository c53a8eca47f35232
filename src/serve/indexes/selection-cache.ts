/**
 * Remembers what was selected from one immutable snapshot (a filtered selection, a page read from a
 * serving index), so that asking again costs a lookup. Bounded, because filters and positions come
 * from clients: by entries, or by what `sizeOf` says an entry holds (its bytes, say); when a new
 * entry would not fit, it starts over. An entry larger than the whole bound is not kept.
 */
export class SelectionCache<T> {
  private readonly entries = new Map<string, T>();
  private held = 0;

  constructor(
    private readonly capacity = 256,
    private readonly sizeOf: (value: T) => number = () => 1,
  ) {}

  /** The entry kept under `key`, if any, without computing one. */
  peek(key: string): T | undefined {
    return this.entries.get(key);
  }

  get(key: string, compute: () => T): T {
    if (this.entries.has(key)) return this.entries.get(key) as T;
    const value = compute();
    const size = this.sizeOf(value);
    if (size > this.capacity) return value;
    if (this.held + size > this.capacity) {
      this.entries.clear();
      this.held = 0;
    }
    this.entries.set(key, value);
    this.held += size;
    return value;
  }
}
