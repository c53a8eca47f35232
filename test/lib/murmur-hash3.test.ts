import { describe, expect, it } from 'vitest';
import { murmurHash3 } from '../../src/lib/murmur-hash3.js';

describe('murmurHash3', () => {
  it.each([
    ['', 0, 0],
    ['', 1, 0x514e28b7],
    ['', 0xffffffff, 0x81f16f39],
    ['\0\0\0\0', 0, 0x2362f9de],
    ['a', 0x9747b28c, 0x7fa09ea6],
    ['aa', 0x9747b28c, 0x5d211726],
    ['abc', 0x9747b28c, 0xc84a62dd],
    ['aaaa', 0x9747b28c, 0x5a97808a],
    ['Hello, world!', 0x9747b28c, 0x24884cba],
    ['The quick brown fox jumps over the lazy dog', 0x9747b28c, 0x2fa826cd],
  ])('gives the published MurmurHash3_x86_32 of %j with seed %i', (text, seed, expected) => {
    const bytes = Buffer.from(text, 'latin1');
    expect(murmurHash3(bytes, 0, bytes.length, seed)).toBe(expected);
  });

  it('hashes the range it is given, wherever it lies in the buffer', () => {
    const bytes = Buffer.from('xxHello, world!yy', 'latin1');
    expect(murmurHash3(bytes, 2, bytes.length - 2, 0x9747b28c)).toBe(0x24884cba);
  });
});
