import { z } from 'zod';
import { Instant, IsoDate } from './primitives.js';

/**
 * The facts of a snapshot: what the freshness rules read, and counts a reader of the manifest
 * should see. Which fields are set depends on the dataset: articles set latestPublishedAt and feedItems;
 * calendar sets oldestVerifiedAt and coverageThrough; smart-money sets oldestPeriod and
 * filingsWithDisagreeingTotals.
 */
export const FreshnessFacts = z
  .object({
    generatedAt: Instant,
    latestPublishedAt: Instant.optional(),
    /**
     * Articles published from each source's feed (RSS, Atom, JSON Feed), by the registry's source id;
     * a source whose feed gave none is absent. Drift reads it: a feed that had items and has none is
     * an empty channel or an error page saved as the feed. Bundles built before it was added lack it.
     */
    feedItems: z.record(z.string(), z.number().int().min(1)).optional(),
    oldestVerifiedAt: Instant.optional(),
    /** Last scheduled day the calendar covers. */
    coverageThrough: IsoDate.optional(),
    /** Earliest filing quarter end among the published investors. */
    oldestPeriod: IsoDate.optional(),
    /** Filings whose cover page totals disagree with their information table, published from the table. */
    filingsWithDisagreeingTotals: z.number().int().min(0).optional(),
  })
  .strict();
export type FreshnessFacts = z.infer<typeof FreshnessFacts>;
