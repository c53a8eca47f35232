import { TIERS, type TierName } from './limits.js';

export interface MonthlyBill {
  requests: number;
  included: number;
  /** Requests beyond the included amount: the metered, billable part. */
  overage: number;
  billableCents: number;
  /** The same amount as a decimal string, e.g. "20.00", so no float rounding reaches a report. */
  billableUsd: string;
  hardCap: number;
  hardCapReached: boolean;
}

/**
 * The bill of one key for one month. Overage is charged pro rata per request at the tier's
 * price per 1,000 (member 0.2 cents, premium 0.1 cents a request), and the monthly total is
 * rounded up to the whole cent once: 1 request of member overage costs 0.01 USD, 10,000 cost
 * 20.00 USD. Rounding per 1,000-block would charge 2 USD for a single extra request.
 */
export function billMonth(tier: TierName, requests: number): MonthlyBill {
  const limits = TIERS[tier];
  const overage = Math.max(0, requests - limits.includedPerMonth);
  // overage * cents / 1000, rounded up, in integers only.
  const billableCents = Math.ceil((overage * limits.overageCentsPer1000) / 1000);
  return {
    requests,
    included: limits.includedPerMonth,
    overage,
    billableCents,
    billableUsd: formatUsd(billableCents),
    hardCap: limits.hardCapPerMonth,
    hardCapReached: requests >= limits.hardCapPerMonth,
  };
}

export function formatUsd(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}
