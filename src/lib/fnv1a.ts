/**
 * FNV-1a (32-bit): a byte at a time, a hash that costs next to nothing on short keys. Callers tell
 * keys that share a hash apart by their bytes.
 */
export const FNV_OFFSET = 0x811c9dc5 | 0;
export const FNV_PRIME = 0x01000193;

/** FNV-1a of `bytes[start, end)`: a signed 32-bit number, which V8 keeps unboxed (a map keyed by it allocates nothing). */
export function fnv1a(bytes: Uint8Array, start: number, end: number): number {
  let hash = FNV_OFFSET;
  for (let i = start; i < end; i += 1) hash = Math.imul(hash ^ bytes[i]!, FNV_PRIME);
  return hash;
}
