import type { ConsensusRow, InvestorDetail, TradeAction, TradeRow } from '../../model/smart-money.js';
import { SelectionCache } from './selection-cache.js';

export interface SmartMoneyIndex {
  /** Largest reported value total first, then slug. */
  investors: readonly InvestorDetail[];
  bySlug: ReadonlyMap<string, InvestorDetail>;
  /** Rank order. */
  consensus: readonly ConsensusRow[];
  /** The bundle's order, which the pipeline makes deterministic. */
  trades: readonly TradeRow[];
  investorCache: SelectionCache<InvestorDetail>;
  tradeCache: SelectionCache<TradeRow>;
}

export function indexSmartMoney(resources: {
  investors: readonly InvestorDetail[];
  consensus: readonly ConsensusRow[];
  trades: readonly TradeRow[];
}): SmartMoneyIndex {
  const investors = [...resources.investors].sort(
    (a, b) => b.reportedValueTotal - a.reportedValueTotal || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0),
  );
  return {
    investors,
    bySlug: new Map(investors.map((i) => [i.slug, i])),
    consensus: [...resources.consensus].sort((a, b) => a.rank - b.rank),
    trades: resources.trades,
    investorCache: new SelectionCache(),
    tradeCache: new SelectionCache(),
  };
}

export function selectInvestors(index: SmartMoneyIndex, filter: { category?: string }): readonly InvestorDetail[] {
  if (filter.category === undefined) return index.investors;
  return index.investorCache.get(filter.category, () => index.investors.filter((i) => i.category === filter.category));
}

export function selectTrades(index: SmartMoneyIndex, filter: { action?: TradeAction; investorSlug?: string }): readonly TradeRow[] {
  if (filter.action === undefined && filter.investorSlug === undefined) return index.trades;
  return index.tradeCache.get(JSON.stringify([filter.action, filter.investorSlug]), () =>
    index.trades.filter(
      (t) => (filter.action === undefined || t.action === filter.action) && (filter.investorSlug === undefined || t.investorSlug === filter.investorSlug),
    ),
  );
}
