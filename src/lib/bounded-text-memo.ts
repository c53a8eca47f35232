/**
 * A pure function of a string, remembered per distinct string: issuer names, time zone names and
 * query strings repeat across millions of records or requests, and the answer for a string never
 * changes. Bounded, since the strings may come from a source file or a client: past `limit`
 * distinct strings, or past `maxChars` characters of them (with a string answer's own characters),
 * the memory starts over (the answers are only computed again).
 */
export class BoundedTextMemo<T> {
  private readonly seen = new Map<string, T>();
  private chars = 0;

  constructor(
    private readonly compute: (text: string) => T,
    private readonly limit: number,
    private readonly maxChars: number = Number.POSITIVE_INFINITY,
    /** How much an answer holds, counted with the strings' characters: a string answer's length by default. */
    private readonly weigh: (answer: T) => number = (answer) => (typeof answer === 'string' ? answer.length : 0),
  ) {}

  of(text: string): T {
    let answer = this.seen.get(text);
    if (answer === undefined) {
      answer = this.compute(text);
      const chars = text.length + this.weigh(answer);
      // One string heavier than the whole bound is answered, not kept.
      if (chars > this.maxChars) return answer;
      if (this.seen.size >= this.limit || this.chars + chars > this.maxChars) {
        this.seen.clear();
        this.chars = 0;
      }
      this.seen.set(text, answer);
      this.chars += chars;
    }
    return answer;
  }

  /** Distinct strings remembered now. */
  get size(): number {
    return this.seen.size;
  }
}
