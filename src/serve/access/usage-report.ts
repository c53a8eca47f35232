import { billMonth, formatUsd, type MonthlyBill } from './billing.js';
import type { KeyRecord } from './key-record.js';
import type { TierName } from './limits.js';
import type { MonthlyUsageRow } from './usage-store.js';

export interface KeyUsageLine extends MonthlyBill {
  keyId: string;
  /** null for a key that has usage but is no longer in the keys file. */
  name: string | null;
  tier: TierName;
  /** Requests refused with 429 this month: recorded, never billed. */
  rejected: number;
  revoked: boolean;
}

export interface UsageReport {
  month: string;
  keys: KeyUsageLine[];
  totals: { requests: number; rejected: number; overage: number; billableCents: number; billableUsd: string };
}

/**
 * One month's requests, overage and bill per key: every key of the keys file (unused ones with 0)
 * plus any key that has usage without a record. A key is billed at the tier of its latest request
 * in the month, as the usage database recorded it.
 */
export function usageReport(month: string, rows: MonthlyUsageRow[], keys: KeyRecord[]): UsageReport {
  const byId = new Map(keys.map((k) => [k.id, k]));
  const usageById = new Map(rows.map((r) => [r.keyId, r]));
  const ids = [...new Set([...keys.map((k) => k.id), ...rows.map((r) => r.keyId)])].sort();
  const lines = ids.map((keyId): KeyUsageLine => {
    const record = byId.get(keyId);
    const usage = usageById.get(keyId);
    const tier = usage?.tier ?? record?.tier ?? 'member';
    return {
      keyId,
      name: record?.name ?? null,
      tier,
      ...billMonth(tier, usage?.requests ?? 0),
      rejected: usage?.rejected ?? 0,
      revoked: record ? record.revokedAt !== null : false,
    };
  });
  const billableCents = lines.reduce((sum, l) => sum + l.billableCents, 0);
  return {
    month,
    keys: lines,
    totals: {
      requests: lines.reduce((sum, l) => sum + l.requests, 0),
      rejected: lines.reduce((sum, l) => sum + l.rejected, 0),
      overage: lines.reduce((sum, l) => sum + l.overage, 0),
      billableCents,
      billableUsd: formatUsd(billableCents),
    },
  };
}
