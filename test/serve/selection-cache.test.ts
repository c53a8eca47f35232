import { describe, expect, it } from 'vitest';
import { SelectionCache } from '../../src/serve/indexes/selection-cache.js';

describe('SelectionCache', () => {
  it('computes a key once, remembers an undefined answer too, and starts over when the bound is reached', () => {
    const computed: string[] = [];
    const cache = new SelectionCache<string | undefined>(3);
    const get = (key: string) =>
      cache.get(key, () => {
        computed.push(key);
        return key === 'none' ? undefined : key.toUpperCase();
      });
    expect([get('a'), get('a'), get('none'), get('none'), get('b')]).toEqual(['A', 'A', undefined, undefined, 'B']);
    expect(computed).toEqual(['a', 'none', 'b']);
    // A fourth entry does not fit in 3: the cache starts over with it, and 'a' is computed again.
    expect([get('c'), get('c'), get('a')]).toEqual(['C', 'C', 'A']);
    expect(computed).toEqual(['a', 'none', 'b', 'c', 'a']);
  });

  it('bounds by what sizeOf says an entry holds, and never keeps an entry larger than the bound', () => {
    let reads = 0;
    const cache = new SelectionCache<string>(10, (value) => value.length);
    const get = (text: string) =>
      cache.get(text, () => {
        reads += 1;
        return text;
      });
    get('123456');
    get('123456');
    expect(reads).toBe(1);
    // 6 + 5 > 10: starts over with the new entry.
    get('abcde');
    get('123456');
    expect(reads).toBe(3);
    // Larger than the whole bound: answered, never kept, and nothing else is dropped for it.
    get('this is too long');
    get('this is too long');
    expect(reads).toBe(5);
    get('123456');
    expect(reads).toBe(5);
  });
});
