import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BROTLI_QUALITY, CompressedAnswers } from '../../src/serve/compressed-answers.js';

const decoders = { br: brotliDecompressSync, gzip: gunzipSync } as const;
const page = (n: number) =>
  Buffer.from(JSON.stringify({ data: Array.from({ length: n }, (_, i) => ({ slug: `article-${i}`, title: `Title ${i}` })) }));

describe('CompressedAnswers', () => {
  it('compresses a page once per tag and encoding, and answers a HEAD only from what it kept', () => {
    const answers = new CompressedAnswers();
    const body = page(200);
    for (const encoding of ['br', 'gzip'] as const) {
      expect(answers.encode(body, encoding, '"tag"', body.length, true)).toBeNull();
      const made = answers.encode(body, encoding, '"tag"', body.length)!;
      expect(decoders[encoding](made).equals(body)).toBe(true);
      // Kept: the same bytes, also for a HEAD, which never compresses.
      expect(answers.encode(body, encoding, '"tag"', body.length, true)).toBe(made);
      expect(answers.encode(body, encoding, '"tag"', body.length)).toBe(made);
    }
    // Without a varying tail, the stream is exactly zlib's at the answers' quality.
    const br = answers.encode(body, 'br', '"tag"', body.length)!;
    expect(br.equals(brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } }))).toBe(true);
  });

  it('ends a kept stream with each request’s own tail, which any decoder reads as one stream, whatever its length', () => {
    const answers = new CompressedAnswers();
    const head = page(300);
    for (const tailLength of [1, 30, 65_535, 65_536, 65_537, 200_000]) {
      for (const encoding of ['br', 'gzip'] as const) {
        for (const fill of ['a', 'b']) {
          const body = Buffer.concat([head, Buffer.alloc(tailLength, fill)]);
          const encoded = answers.encode(body, encoding, `"t${tailLength}"`, head.length)!;
          expect(decoders[encoding](encoded).equals(body), `${encoding} ${tailLength} ${fill}`).toBe(true);
        }
        const body = Buffer.concat([head, Buffer.alloc(tailLength, 'c')]);
        expect(answers.encode(body, encoding, `"t${tailLength}"`, head.length, true)).not.toBeNull();
      }
    }
  });

  it('compresses another body under a tag it already holds as that body is, and keeps the first', () => {
    const answers = new CompressedAnswers();
    const first = page(100);
    const other = page(101).subarray(0, first.length);
    for (const encoding of ['br', 'gzip'] as const) {
      answers.encode(first, encoding, '"same"', first.length);
      expect(decoders[encoding](answers.encode(other, encoding, '"same"', other.length)!).equals(other)).toBe(true);
      expect(answers.encode(other, encoding, '"same"', other.length, true)).toBeNull();
      expect(decoders[encoding](answers.encode(first, encoding, '"same"', first.length, true)!).equals(first)).toBe(true);
    }
  });

  it('holds at most its bound of compressed bytes, starting over when full', () => {
    const body = page(2000);
    const one = new CompressedAnswers().encode(body, 'gzip', '"0"', body.length)!.length;
    const answers = new CompressedAnswers(one * 2);
    answers.encode(body, 'gzip', '"1"', body.length);
    answers.encode(body, 'gzip', '"2"', body.length);
    expect(answers.encode(body, 'gzip', '"1"', body.length, true)).not.toBeNull();
    answers.encode(body, 'gzip', '"3"', body.length);
    expect(answers.encode(body, 'gzip', '"1"', body.length, true)).toBeNull();
    expect(answers.encode(body, 'gzip', '"3"', body.length, true)).not.toBeNull();
  });
});
