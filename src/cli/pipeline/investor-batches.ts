import type { InvestorPlan } from '../../derive/smart-money/index.js';
import { wholeNumberFromEnv } from '../../lib/env-number.js';
import { murmurHash3 } from '../../lib/murmur-hash3.js';

/** Investors per batch on average: a few milliseconds' work, about 2.5 MB of lines at full scale. */
const AVERAGE_BATCH_INVESTORS = 32;

/** PDSNAP_BATCH_INVESTORS overrides the average (tests cut the small sample into several batches with it). */
export function averageBatchInvestors(env: NodeJS.ProcessEnv = process.env): number {
  return (
    wholeNumberFromEnv(env, 'PDSNAP_BATCH_INVESTORS', 'a whole number from 1 to 4096', (value) => value >= 1 && value <= 4096) ??
    AVERAGE_BATCH_INVESTORS
  );
}

/**
 * Cuts the plans (in published order) into batches of consecutive investors by content: a batch
 * ends after an investor whose slug hashes to a boundary (one in `average`), or at four times
 * `average` investors. An investor added, removed or changed moves no boundary but its own, so the
 * other batches, and their derivation cache keys, stay as they were (investor-batch-cache.ts).
 */
export function batchInvestorPlans(plans: readonly InvestorPlan[], average: number = averageBatchInvestors()): InvestorPlan[][] {
  // Four times the average: a forced cut moves when an investor before it comes or goes, and the
  // batches after it until the next boundary by content move with it; (1 - 1/32)^128, 2 % of batches, are cut so.
  const max = 4 * average;
  const batches: InvestorPlan[][] = [];
  let batch: InvestorPlan[] = [];
  for (const plan of plans) {
    batch.push(plan);
    if (batch.length === max || slugHash(plan.identity.slug) % average === 0) {
      batches.push(batch);
      batch = [];
    }
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** The slug's UTF-8 bytes through MurmurHash3 (as part boundaries use it): spread well in every bit. */
function slugHash(slug: string): number {
  const bytes = Buffer.from(slug, 'utf8');
  return murmurHash3(bytes, 0, bytes.length, 0);
}
