import type { FilingMeta } from '../../model/filing.js';
import { POSITION_CAP, type InvestorDetail, type Position } from '../../model/smart-money.js';
import { capPositions } from './cap.js';
import type { AggregatedPosition } from './positions.js';

/** Who an investor is, as published: from the registry, or from the filing when there is none. */
export interface InvestorIdentity {
  cik: string;
  slug: string;
  name: string;
  category: string;
}

/** Share of the uncapped total, rounded to 6 decimals; 0 when the investor reports nothing. */
export function positionWeight(reportedValue: number, reportedValueTotal: number): number {
  if (reportedValueTotal <= 0) return 0;
  return Math.round((reportedValue / reportedValueTotal) * 1e6) / 1e6;
}

/** Copies the published fields one by one, so the internal key (with its CUSIP) cannot leak. */
function publishedPosition(position: AggregatedPosition, reportedValueTotal: number): Position {
  return {
    issuerName: position.issuerName,
    titleOfClass: position.titleOfClass,
    kind: position.kind,
    shares: position.shares,
    reportedValue: position.reportedValue,
    weight: positionWeight(position.reportedValue, reportedValueTotal),
  };
}

export interface DerivedInvestor {
  detail: InvestorDetail;
  /** The capped positions in published order, with their keys, for consensus. */
  shownPositions: AggregatedPosition[];
}

/**
 * The investor record with its capped positions. Totals and counts are over every aggregated
 * position (uncapped); weights are against that uncapped total, so the shown weights can sum to
 * less than 1.
 */
export function buildInvestorDetail(
  identity: InvestorIdentity,
  base: FilingMeta,
  positions: readonly AggregatedPosition[],
  cap: number = POSITION_CAP,
): DerivedInvestor {
  let reportedValueTotal = 0;
  for (const position of positions) reportedValueTotal += position.reportedValue;
  const shownPositions = capPositions(positions, cap);
  return {
    detail: {
      slug: identity.slug,
      name: identity.name,
      category: identity.category,
      period: base.period,
      filedAt: base.filedAt,
      reportedValueTotal,
      positionCount: positions.length,
      positionsShown: shownPositions.length,
      positions: shownPositions.map((position) => publishedPosition(position, reportedValueTotal)),
    },
    shownPositions,
  };
}
