import { z } from 'zod';
import { IsoDate, NonEmpty, Slug, WholeNumber } from './primitives.js';

export const INVESTOR_SLUG_MAX = 160;

/** The category of an investor the registry (filings/investors.yaml) does not list. */
export const UNCLASSIFIED_CATEGORY = 'unclassified';

/** equity = shares without put/call; principal = PRN amounts (bonds, notes); put/call = option rows. */
export const PositionKind = z.enum(['equity', 'put', 'call', 'principal']);
export type PositionKind = z.infer<typeof PositionKind>;

/** One aggregated position as published: issuer name only, never a security identifier. */
export const Position = z
  .object({
    issuerName: NonEmpty,
    titleOfClass: z.string(),
    kind: PositionKind,
    /** Shares, or principal amount for kind "principal". */
    shares: WholeNumber,
    /** Reported filing value in whole US dollars; not a market quote, not assets under management. */
    reportedValue: WholeNumber,
    /** reportedValue / investor's reportedValueTotal (uncapped), rounded to 6 decimals. */
    weight: z.number().min(0).max(1),
  })
  .strict();
export type Position = z.infer<typeof Position>;

export const Investor = z
  .object({
    slug: Slug(INVESTOR_SLUG_MAX),
    name: NonEmpty,
    category: Slug(80),
    /** Quarter end of the report period the holdings are for. */
    period: IsoDate,
    filedAt: IsoDate,
    /** Sum of reported values of all aggregated positions, uncapped, whole dollars. */
    reportedValueTotal: WholeNumber,
    /** Uncapped number of aggregated positions. */
    positionCount: WholeNumber,
    /** Positions published after the 250-row cap. */
    positionsShown: WholeNumber,
  })
  .strict();
export type Investor = z.infer<typeof Investor>;

/** What investors.json holds: each investor with its capped positions (largest first). */
export const InvestorDetail = Investor.extend({ positions: z.array(Position) }).strict();
export type InvestorDetail = z.infer<typeof InvestorDetail>;

export const ConsensusRow = z
  .object({
    rank: z.number().int().min(1),
    issuerName: NonEmpty,
    titleOfClass: z.string(),
    holderCount: z.number().int().min(1),
    totalReportedValue: WholeNumber,
    totalShares: WholeNumber,
    /** Investor slugs by reported value, largest first; bounded so a page stays under 512 KiB. */
    topHolders: z.array(Slug(INVESTOR_SLUG_MAX)),
  })
  .strict();
export type ConsensusRow = z.infer<typeof ConsensusRow>;

export const TRADE_ACTIONS = ['new', 'added', 'trimmed', 'sold'] as const;
export const TradeAction = z.enum(TRADE_ACTIONS);
export type TradeAction = z.infer<typeof TradeAction>;

export const TradeRow = z
  .object({
    investorSlug: Slug(INVESTOR_SLUG_MAX),
    investorName: NonEmpty,
    issuerName: NonEmpty,
    titleOfClass: z.string(),
    kind: PositionKind,
    action: TradeAction,
    period: IsoDate,
    previousPeriod: IsoDate,
    sharesBefore: WholeNumber,
    sharesAfter: WholeNumber,
    /** sharesAfter - sharesBefore; negative for trimmed and sold. */
    sharesChange: z.number().int(),
    /** Reported values, not transaction cash flow. */
    reportedValueBefore: WholeNumber,
    reportedValueAfter: WholeNumber,
  })
  .strict();
export type TradeRow = z.infer<typeof TradeRow>;

/** Caps of docs/spec.md, Caps. */
export const POSITION_CAP = 250;
export const CONSENSUS_INPUT_CAP = 250;
export const CURRENT_CHANGE_ROW_CAP = 250;
