import type { InvestorPlan } from '../../derive/smart-money/index.js';
import { wholeNumberFromEnv } from '../../lib/env-number.js';

/** Investors per batch on average: a few milliseconds' work, about 2.5 MB of lines at full scale. */
const AVERAGE_BATCH_INVESTORS = 32;

/** PDSNAP_BATCH_INVESTORS overrides the average (tests cut the small sample into several batches with it); at most twice as many. */
export function averageBatchInvestors(env: NodeJS.ProcessEnv = process.env): number {
  return (
    wholeNumberFromEnv(env, 'PDSNAP_BATCH_INVESTORS', 'a whole number from 1 to 4096', (value) => value >= 1 && value <= 4096) ??
    AVERAGE_BATCH_INVESTORS
  );
}

/**
 * Cuts the plans (in published order) into batches of consecutive investors by content: a batch
 * ends after an investor whose slug hashes to a boundary (one in `average`), or at twice `average`
 * investors. An investor added, removed or changed moves no boundary but its own, so the
 * other batches, and their derivation cache keys, stay as they were (investor-batch-cache.ts).
 */
export function batchInvestorPlans(plans: readonly InvestorPlan[], average: number = averageBatchInvestors()): InvestorPlan[][] {
  const max = 2 * average;
  const batches: InvestorPlan[][] = [];
  let batch: InvestorPlan[] = [];
  for (const plan of plans) {
    batch.push(plan);
    if (batch.length === max || fnv1a(plan.identity.slug) % average === 0) {
      batches.push(batch);
      batch = [];
    }
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * 32-bit FNV-1a of a string's UTF-16 code units, then MurmurHash3's finalizer: FNV's low bits
 * depend only on the low bits of each character, and the boundary test takes the remainder.
 */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}
