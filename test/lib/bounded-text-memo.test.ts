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

  it("starts over past its count of characters, a string answer's own included, and counts again from there", () => {
    // Each entry weighs its text and its answer: 'xxxx' quoted is 6 characters, so 10 a string.
    const memo = new BoundedTextMemo((text) => JSON.stringify(text), 100, 30);
    memo.of('aaaa');
    memo.of('bbbb');
    memo.of('cccc');
    expect(memo.size).toBe(3); // exactly 30: within the bound
    memo.of('dddd');
    expect(memo.size).toBe(1); // 40 would be over: started over
    memo.of('eeee');
    memo.of('ffff');
    expect(memo.size).toBe(3); // counted from 0 again, not from 40
    expect(memo.of('dddd')).toBe('"dddd"');
  });

  it('answers a string heavier than the whole bound without keeping it or forgetting the others', () => {
    let computed = 0;
    const memo = new BoundedTextMemo(
      (text) => {
        computed += 1;
        return text.length;
      },
      100,
      10,
    );
    memo.of('abc');
    expect(memo.of('x'.repeat(50))).toBe(50);
    expect(memo.size).toBe(1);
    memo.of('x'.repeat(50));
    expect(computed).toBe(3);
  });
});
