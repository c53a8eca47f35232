import { describe, expect, it } from 'vitest';
import { BoundedTextMemo } from '../../src/lib/bounded-text-memo.js';

describe('BoundedTextMemo', () => {
  it('computes each distinct string once while it stays within its bounds', () => {
    const computed: string[] = [];
    const memo = new BoundedTextMemo((text) => {
      computed.push(text);
      return text.length;
    }, 10);
    expect([memo.of('a'), memo.of('bb'), memo.of('a'), memo.of('bb')]).toEqual([1, 2, 1, 2]);
    expect(computed).toEqual(['a', 'bb']);
  });

  it('starts over past its count of strings', () => {
    const memo = new BoundedTextMemo((text) => text.toUpperCase(), 2);
    memo.of('a');
    memo.of('b');
    expect(memo.size).toBe(2);
    memo.of('c');
    expect(memo.size).toBe(1);
  });

  it("starts over past its count of characters, a string answer's own included", () => {
    // Each entry weighs its text and its answer: 'xxxx' quoted is 6 characters, so 10 a string.
    const memo = new BoundedTextMemo((text) => JSON.stringify(text), 100, 25);
    memo.of('aaaa');
    memo.of('bbbb');
    expect(memo.size).toBe(2);
    memo.of('cccc');
    expect(memo.size).toBe(1);
    expect(memo.of('cccc')).toBe('"cccc"');
  });
});
