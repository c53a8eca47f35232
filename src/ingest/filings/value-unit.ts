import type { ValueUnit } from '../../model/filing.js';
import { median } from '../../lib/median.js';

/**
 * Decides whether a filing's `value` column is in dollars or in thousands of dollars.
 *
 * The rule: filings made on or after 2023-01-03 report whole dollars, earlier ones thousands. Filers
 * do not always comply, so the date rule is checked against the median implied price per share of
 * the filing's plain share rows (SH, no put/call, amount > 0): value / shares read as dollars.
 *
 * Thresholds. The median price of the shares a 13F filer holds is, in practice, between about $5
 * and $500 (13F securities are exchange-listed; a portfolio's median is not a penny stock, and
 * only a handful of US stocks trade above $1,000). Reading the column in the wrong unit moves
 * that median by a factor of 1,000, so:
 * - date rule says dollars, but the median is below $0.50: the filer wrote thousands (a true
 *   dollars portfolio would need a median share price under fifty cents);
 * - date rule says thousands, but the median read as thousands is above $10,000 per share
 *   (i.e. above $10 read as dollars): the filer wrote dollars (a true thousands portfolio would
 *   need a median share price above $10,000, which no diversified holding list has).
 * Between the two, the date rule stands: the filer's legal obligation is the stronger evidence.
 * Fewer than 3 share rows is too little to overrule it (a one-line filing of a $700,000 share
 * class would otherwise flip), so such filings keep the date rule.
 */

export const DOLLARS_FROM = '2023-01-03';
export const MIN_ROWS_TO_OVERRIDE = 3;
/** Median implied price (value read as dollars / shares) below which "dollars" means thousands. */
export const DOLLARS_TOO_CHEAP = 0.5;
/** Median implied price (value read as thousands / shares) above which "thousands" means dollars. */
export const THOUSANDS_TOO_DEAR = 10_000;

export interface UnitEvidenceRow {
  putCall: 'put' | 'call' | null;
  amountType: 'SH' | 'PRN';
  amount: number;
  reportedValue: number;
}

export interface ValueUnitDecision {
  unit: ValueUnit;
  reason: string;
  /** True when the implied prices overruled the filing-date rule. */
  overridden: boolean;
}

export function decideValueUnit(filedAt: string, rows: Iterable<UnitEvidenceRow>): ValueUnitDecision {
  const prices: number[] = [];
  for (const row of rows) {
    const price = impliedSharePrice(row);
    if (price !== null) prices.push(price);
  }
  return decideValueUnitByPrices(filedAt, prices);
}

/** The row's reported value per share, for a share row (not an option) with both numbers above zero; else null. */
export function impliedSharePrice(row: UnitEvidenceRow): number | null {
  return row.amountType === 'SH' && row.putCall === null && row.amount > 0 && row.reportedValue > 0 ? row.reportedValue / row.amount : null;
}

/** decideValueUnit from the implied share prices of a filing's rows (impliedSharePrice), in any order. */
export function decideValueUnitByPrices(filedAt: string, prices: readonly number[]): ValueUnitDecision {
  const byDate: ValueUnit = filedAt >= DOLLARS_FROM ? 'dollars' : 'thousands';
  const dateReason = `filed ${filedAt}, ${byDate === 'dollars' ? 'on or after' : 'before'} ${DOLLARS_FROM}`;
  if (prices.length < MIN_ROWS_TO_OVERRIDE) {
    const why = prices.length === 0 ? 'no share rows to check' : `only ${prices.length} share row(s), too few to check`;
    return { unit: byDate, reason: `${dateReason}: ${byDate} (${why})`, overridden: false };
  }
  // At least MIN_ROWS_TO_OVERRIDE prices: there is a median.
  const medianAsDollars = median(prices)!;
  const evidence = `median implied price of ${prices.length} share rows`;
  if (byDate === 'dollars' && medianAsDollars < DOLLARS_TOO_CHEAP) {
    return {
      unit: 'thousands',
      reason: `${dateReason} (date rule: dollars), but the ${evidence} read as dollars is ${money(medianAsDollars)} per share (below ${money(DOLLARS_TOO_CHEAP)}): read as thousands`,
      overridden: true,
    };
  }
  if (byDate === 'thousands' && medianAsDollars * 1000 > THOUSANDS_TOO_DEAR) {
    return {
      unit: 'dollars',
      reason: `${dateReason} (date rule: thousands), but the ${evidence} read as thousands is ${money(medianAsDollars * 1000)} per share (above ${money(THOUSANDS_TOO_DEAR)}): read as dollars`,
      overridden: true,
    };
  }
  const asUnit = byDate === 'dollars' ? medianAsDollars : medianAsDollars * 1000;
  return { unit: byDate, reason: `${dateReason}: ${byDate} (${evidence} ${money(asUnit)} per share agrees)`, overridden: false };
}

/** Whole dollars from a reported value. */
export function toWholeDollars(reportedValue: number, unit: ValueUnit): number {
  return Math.round(unit === 'thousands' ? reportedValue * 1000 : reportedValue);
}

function money(amount: number): string {
  return `$${amount >= 100 ? Math.round(amount).toLocaleString('en-US') : amount.toFixed(amount < 1 ? 4 : 2)}`;
}
