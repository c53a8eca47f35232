/**
 * MurmurHash3 (x86, 32-bit) of `bytes[start, end)` with `seed`, unsigned: a fast hash whose final
 * mix spreads every input bit over every output bit, so its high bits are as good as its low
 * ones (FNV-1a's are not for the last bytes it takes). It reads four bytes a step.
 */
export function murmurHash3(bytes: Uint8Array, start: number, end: number, seed: number): number {
  const blocksEnd = start + ((end - start) & ~3);
  let hash = seed | 0;
  for (let i = start; i < blocksEnd; i += 4) {
    hash ^= mixBlock(bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
    hash = (hash << 13) | (hash >>> 19);
    hash = (Math.imul(hash, 5) + 0xe6546b64) | 0;
  }
  // The last one to three bytes, little-endian, mixed as a block but without the rotation.
  const rest = end - blocksEnd;
  if (rest > 0) {
    let tail = bytes[blocksEnd]!;
    if (rest > 1) tail |= bytes[blocksEnd + 1]! << 8;
    if (rest > 2) tail |= bytes[blocksEnd + 2]! << 16;
    hash ^= mixBlock(tail);
  }
  hash ^= end - start;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

function mixBlock(block: number): number {
  const k = Math.imul(block, 0xcc9e2d51);
  return Math.imul((k << 15) | (k >>> 17), 0x1b873593);
}
