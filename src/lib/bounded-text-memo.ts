/**
 * A pure function of a string, remembered per distinct string: issuer names, time zone names and
 * query strings repeat across millions of records or requests, and the answer for a string never
 * changes. Bounded, since the strings may come from a source file or a client: past `limit`
 * distinct strings the memory starts over (the answers are only computed again).
 */
export class BoundedTextMemo<T> {
  private readonly seen = new Map<string, T>();

  constructor(
    private readonly compute: (text: string) => T,
    private readonly limit: number,
  ) {}

  of(text: string): T {
    let answer = this.seen.get(text);
    if (answer === undefined) {
      answer = this.compute(text);
      if (this.seen.size >= this.limit) this.seen.clear();
      this.seen.set(text, answer);
    }
    return answer;
  }
}
