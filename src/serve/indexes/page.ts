/**
 * One page of a list. `next` is the position where the following page starts (null on the last
 * page): an offset into an in-memory selection, or a key position in a serving index. Cursors carry
 * it without knowing which. `total` is known only where the whole selection is.
 */
export interface Page {
  data: readonly unknown[];
  next: number | null;
  total?: number;
}

/** The page at `offset` of a selection held in memory. */
export function arrayPage(all: readonly unknown[], offset: number, limit: number): Page {
  const next = offset + limit;
  return { data: all.slice(offset, next), next: next < all.length ? next : null, total: all.length };
}
