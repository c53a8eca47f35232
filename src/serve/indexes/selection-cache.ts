/**
 * Remembers filtered selections of one immutable snapshot, so that paging through a filtered list
 * filters once. Bounded, because filter values come from clients: when full it starts over.
 */
export class SelectionCache<T> {
  private readonly entries = new Map<string, readonly T[]>();

  constructor(private readonly capacity = 256) {}

  get(key: string, compute: () => readonly T[]): readonly T[] {
    const hit = this.entries.get(key);
    if (hit) return hit;
    if (this.entries.size >= this.capacity) this.entries.clear();
    const value = compute();
    this.entries.set(key, value);
    return value;
  }
}
