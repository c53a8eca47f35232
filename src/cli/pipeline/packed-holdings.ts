import type { ConsensusHolding } from '../../derive/smart-money/index.js';

/**
 * The consensus holdings of a batch of investors as a derivation cache entry keeps them: each
 * string once, each holding five numbers (key, issuer name and title as string numbers, shares,
 * reported value), so that a batch of 64 investors costs tens of kilobytes, not megabytes of
 * repeated field names. Plain JSON data: it crosses threads and goes into the cache as it is.
 */
export interface PackedHoldings {
  strings: string[];
  investors: Array<[slug: string, holdings: number[]]>;
}

const FIELDS = 5;

export class HoldingsPacker {
  private readonly strings: string[] = [];
  private readonly numbers = new Map<string, number>();
  private readonly investors: PackedHoldings['investors'] = [];

  add(slug: string, holdings: readonly ConsensusHolding[]): void {
    const flat: number[] = [];
    for (const holding of holdings) {
      flat.push(
        this.number(holding.key),
        this.number(holding.issuerName),
        this.number(holding.titleOfClass),
        holding.shares,
        holding.reportedValue,
      );
    }
    this.investors.push([slug, flat]);
  }

  pack(): PackedHoldings {
    return { strings: this.strings, investors: this.investors };
  }

  private number(text: string): number {
    let number = this.numbers.get(text);
    if (number === undefined) {
      number = this.strings.length;
      this.strings.push(text);
      this.numbers.set(text, number);
    }
    return number;
  }
}

/** Each investor's holdings, in the order packed; throws on a pack that is not well formed. */
export function* unpackHoldings(packed: PackedHoldings): Generator<[slug: string, holdings: ConsensusHolding[]]> {
  const text = (number: number | undefined) => {
    const found = number === undefined ? undefined : packed.strings[number];
    if (found === undefined) throw new Error('packed holdings: a string number out of range');
    return found;
  };
  for (const [slug, flat] of packed.investors) {
    if (typeof slug !== 'string' || !Array.isArray(flat) || flat.length % FIELDS !== 0) throw new Error('packed holdings: not an investor');
    const holdings: ConsensusHolding[] = [];
    for (let at = 0; at < flat.length; at += FIELDS) {
      const shares = flat[at + 3]!;
      const reportedValue = flat[at + 4]!;
      if (!Number.isSafeInteger(shares) || !Number.isSafeInteger(reportedValue)) throw new Error('packed holdings: not a whole number');
      holdings.push({ key: text(flat[at]), issuerName: text(flat[at + 1]), titleOfClass: text(flat[at + 2]), shares, reportedValue });
    }
    yield [slug, holdings];
  }
}
