import { describe, expect, it } from 'vitest';
import { capPositions } from '../../../src/derive/smart-money/cap.js';
import { CUSIP, equity, syntheticCusip } from './catalog.js';

describe('capPositions', () => {
  it('keeps the largest 250 by reported value, largest first', () => {
    const positions = Array.from({ length: 300 }, (_, i) => equity(`ISSUER ${i}`, syntheticCusip('Q', i), 1, i + 1));
    const capped = capPositions(positions);
    expect(capped).toHaveLength(250);
    expect(capped[0]!.reportedValue).toBe(300);
    expect(capped.at(-1)!.reportedValue).toBe(51);
  });

  it('breaks ties in value by issuer name, then by key', () => {
    const positions = [
      equity('ZETA CORP', CUSIP.chevron, 1, 500),
      equity('ALPHA CORP', CUSIP.microsoft, 1, 500),
      equity('ALPHA CORP', CUSIP.apple, 1, 500),
      equity('OMEGA CORP', CUSIP.cocaCola, 1, 900),
    ];
    expect(capPositions(positions, 3).map((p) => [p.issuerName, p.key])).toEqual([
      ['OMEGA CORP', `${CUSIP.cocaCola}|-|SH`],
      ['ALPHA CORP', `${CUSIP.apple}|-|SH`],
      ['ALPHA CORP', `${CUSIP.microsoft}|-|SH`],
    ]);
  });

  it('gives the same result whatever the input order, and leaves the input alone', () => {
    const positions = [equity('B', CUSIP.apple, 1, 5), equity('A', CUSIP.chevron, 1, 5), equity('C', CUSIP.cocaCola, 1, 7)];
    const reversed = [...positions].reverse();
    expect(capPositions(positions, 2)).toEqual(capPositions(reversed, 2));
    expect(positions.map((p) => p.issuerName)).toEqual(['B', 'A', 'C']);
  });
});
