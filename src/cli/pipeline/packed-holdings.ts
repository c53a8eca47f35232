import type { ConsensusHolding } from '../../derive/smart-money/index.js';

/**
 * The consensus holdings of a batch of investors as a derivation cache entry keeps them: per
 * investor its slug and one flat array of five values a holding (key, issuer name, title, shares,
 * reported value), without field names. Plain data: it crosses threads and is kept inside a batch's
 * entry (V8-serialized). Strings are not shared between holdings: looking each up costs a derivation
 * worker more than the bytes it would save.
 */
export type PackedHoldings = Array<[slug: string, holdings: Array<string | number>]>;

const FIELDS = 5;

export class HoldingsPacker {
  private readonly investors: PackedHoldings = [];

  add(slug: string, holdings: readonly ConsensusHolding[]): void {
    const flat: Array<string | number> = [];
    for (const holding of holdings) flat.push(holding.key, holding.issuerName, holding.titleOfClass, holding.shares, holding.reportedValue);
    this.investors.push([slug, flat]);
  }

  pack(): PackedHoldings {
    return this.investors;
  }
}

/** Each investor's holdings, in the order packed; throws on a pack that is not well formed. */
export function* unpackHoldings(packed: PackedHoldings): Generator<[slug: string, holdings: ConsensusHolding[]]> {
  if (!Array.isArray(packed)) throw new Error('packed holdings: not a list of investors');
  for (const investor of packed) {
    const [slug, flat] = Array.isArray(investor) ? investor : [];
    if (typeof slug !== 'string' || !Array.isArray(flat) || flat.length % FIELDS !== 0) throw new Error('packed holdings: not an investor');
    const holdings: ConsensusHolding[] = [];
    for (let at = 0; at < flat.length; at += FIELDS) {
      const [key, issuerName, titleOfClass, shares, reportedValue] = [flat[at], flat[at + 1], flat[at + 2], flat[at + 3], flat[at + 4]];
      if (typeof key !== 'string' || typeof issuerName !== 'string' || typeof titleOfClass !== 'string') {
        throw new Error('packed holdings: a key or name that is not a string');
      }
      if (!Number.isSafeInteger(shares) || !Number.isSafeInteger(reportedValue)) throw new Error('packed holdings: not a whole number');
      holdings.push({ key, issuerName, titleOfClass, shares: shares as number, reportedValue: reportedValue as number });
    }
    yield [slug, holdings];
  }
}
