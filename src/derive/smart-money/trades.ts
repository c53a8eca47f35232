import { CURRENT_CHANGE_ROW_CAP, TRADE_ACTIONS, type TradeAction, type TradeRow } from '../../model/smart-money.js';
import { capPositions } from './cap.js';
import { compareText } from '../../lib/text-order.js';
import { compareDescending } from './compare-descending.js';
import type { AggregatedPosition } from './positions.js';
import { previousQuarterEnd } from '../../lib/quarters.js';

/** An investor's full, uncapped aggregated positions for one report period. */
export interface PeriodPositions {
  period: string;
  positions: readonly AggregatedPosition[];
}

export interface TradeInvestor {
  slug: string;
  name: string;
}

/** A trade row with the position key it came from, kept only for ordering and the cap. */
interface KeyedTrade {
  key: string;
  issuerName: string;
  /** What the change-row cap ranks by: the reported value held now. */
  reportedValue: number;
  row: TradeRow;
}

function tradeRow(
  investor: TradeInvestor,
  action: TradeAction,
  current: PeriodPositions,
  previousPeriod: string,
  before: AggregatedPosition | undefined,
  after: AggregatedPosition | undefined,
): KeyedTrade {
  // Names come from the current filing when the position is still listed, else from the previous one.
  const shown = (after ?? before)!;
  const sharesBefore = before?.shares ?? 0;
  const sharesAfter = after?.shares ?? 0;
  return {
    key: shown.key,
    issuerName: shown.issuerName,
    reportedValue: after?.reportedValue ?? 0,
    row: {
      investorSlug: investor.slug,
      investorName: investor.name,
      issuerName: shown.issuerName,
      titleOfClass: shown.titleOfClass,
      kind: shown.kind,
      action,
      period: current.period,
      previousPeriod,
      sharesBefore,
      sharesAfter,
      sharesChange: sharesAfter - sharesBefore,
      reportedValueBefore: before?.reportedValue ?? 0,
      reportedValueAfter: after?.reportedValue ?? 0,
    },
  };
}

/** Classification on share counts only: a change in reported value alone is not a trade. */
function classify(sharesBefore: number, sharesAfter: number): TradeAction | null {
  if (sharesBefore <= 0) return sharesAfter > 0 ? 'new' : null;
  if (sharesAfter <= 0) return 'sold';
  if (sharesAfter > sharesBefore) return 'added';
  if (sharesAfter < sharesBefore) return 'trimmed';
  return null;
}

const ACTION_ORDER = new Map<TradeAction, number>(TRADE_ACTIONS.map((action, index) => [action, index]));

/** The value a row is ranked by: what is held now, or for a sale what was held before. */
function rankingValue(row: TradeRow): number {
  return row.action === 'sold' ? row.reportedValueBefore : row.reportedValueAfter;
}

/** Published order within one investor: new, added, trimmed, sold; then value, issuer name, key. */
function compareTrades(a: KeyedTrade, b: KeyedTrade): number {
  return (
    ACTION_ORDER.get(a.row.action)! - ACTION_ORDER.get(b.row.action)! ||
    compareDescending(rankingValue(a.row), rankingValue(b.row)) ||
    compareText(a.row.issuerName, b.row.issuerName) ||
    compareText(a.key, b.key)
  );
}

/** Positions by key, the later one of a key kept (as new Map(positions.map(...)) would), without a pair per position. */
function positionsByKey(positions: readonly AggregatedPosition[]): Map<string, AggregatedPosition> {
  const byKey = new Map<string, AggregatedPosition>();
  for (const position of positions) byKey.set(position.key, position);
  return byKey;
}

/**
 * Quarter-over-quarter trades of one investor (docs/spec.md, Trades).
 *
 * - Compares with the adjacent previous quarter only; if `previous` is missing or is any other
 *   period, there are no trades at all (never a list of `new`).
 * - Works on the full, uncapped positions: a position that merely fell below the 250-row display
 *   cap is still held and is not sold.
 * - new / added / trimmed rows (positions held now) are capped to the 250 largest by
 *   reportedValueAfter; sold rows are kept apart and never capped, so an investor can have more
 *   than 250 rows.
 */
export function deriveTrades(
  current: PeriodPositions,
  previous: PeriodPositions | null,
  investor: TradeInvestor,
  changeRowCap: number = CURRENT_CHANGE_ROW_CAP,
): TradeRow[] {
  const previousPeriod = previousQuarterEnd(current.period);
  if (previous === null || previousPeriod === null || previous.period !== previousPeriod) return [];

  const before = positionsByKey(previous.positions);
  const after = positionsByKey(current.positions);

  const changes: KeyedTrade[] = [];
  const sold: KeyedTrade[] = [];
  for (const position of after.values()) {
    const earlier = before.get(position.key);
    const action = classify(earlier?.shares ?? 0, position.shares);
    if (action === null) continue;
    const trade = tradeRow(investor, action, current, previousPeriod, earlier, position);
    (action === 'sold' ? sold : changes).push(trade);
  }
  for (const earlier of before.values()) {
    if (after.has(earlier.key) || classify(earlier.shares, 0) !== 'sold') continue;
    sold.push(tradeRow(investor, 'sold', current, previousPeriod, earlier, undefined));
  }

  const cappedChanges = capPositions(changes, changeRowCap);
  return [...cappedChanges, ...sold].sort(compareTrades).map((trade) => trade.row);
}
