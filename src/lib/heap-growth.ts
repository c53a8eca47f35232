import { wholeNumberFromEnv } from './env-number.js';
import { setFlagsFromString } from 'node:v8';

/** How far past its live set the V8 heap may grow before the next full collection, by default. */
export const DEFAULT_HEAP_GROWTH_PERCENT = 50;

/**
 * Bounds how far the V8 heap grows past what survived the last full collection.
 *
 * On a machine with much memory V8 lets the heap grow to about four times its live set before it
 * collects again. A build allocates fast (a JSON string per record) while its live set stays small
 * next to the filing catalog, which lives outside the heap, so most of that growth is garbage: at
 * full SEC scale, hundreds of MB of peak memory. V8 reads this flag at every full collection, so
 * setting it after start-up takes effect; it never limits the heap, it only makes collections come
 * sooner (docs/performance-log.md, Build memory at 3x, for the cost in time).
 *
 * `PDSNAP_HEAP_GROWTH_PERCENT` overrides the bound; 0 leaves V8's own choice.
 */
export function boundHeapGrowth(env: NodeJS.ProcessEnv = process.env): number {
  const percent =
    wholeNumberFromEnv(env, 'PDSNAP_HEAP_GROWTH_PERCENT', 'a whole number from 0 to 1000', (value) => value >= 0 && value <= 1000) ??
    DEFAULT_HEAP_GROWTH_PERCENT;
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
  return percent;
}
