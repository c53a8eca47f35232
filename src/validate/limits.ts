import { z } from 'zod';
import { DriftThresholdsOverride } from './drift.js';

/**
 * A limit in whole days, at most MAX_LIMIT_DAYS: a larger one (9007199254740991) would make
 * "now minus the limit" an invalid date deep inside a build instead of a refused config.
 */
const MAX_LIMIT_DAYS = 3650;
const dayRange = (min: number) =>
  z
    .number({ error: `must be a whole number of days from ${min} to ${MAX_LIMIT_DAYS}` })
    .int(`must be a whole number of days from ${min} to ${MAX_LIMIT_DAYS}`)
    .min(min, `must be a whole number of days from ${min} to ${MAX_LIMIT_DAYS}`)
    .max(MAX_LIMIT_DAYS, `must be a whole number of days from ${min} to ${MAX_LIMIT_DAYS}`);
const Days = dayRange(1);

/**
 * The freshness limits of each dataset, in whole days (docs/spec.md, Freshness rules). The service promises
 * DEFAULT_LIMITS; a config file may override them, and every report line says when it did.
 */
export const FreshnessLimits = z
  .object({
    articles: z
      .object({
        /** Snapshot generation at most this old. */
        maxGenerationAgeDays: Days,
        /** Newest article's publishedAt at most this old. */
        maxLatestArticleAgeDays: Days,
      })
      .strict(),
    calendar: z
      .object({
        /** Every event's verifiedAt at most this old. */
        maxVerificationAgeDays: Days,
        /** coverageThrough (end of that day) at least this far past snapshot generation. */
        minCoverageDays: dayRange(0),
      })
      .strict(),
    'smart-money': z
      .object({
        maxGenerationAgeDays: Days,
        /** Every filing's quarter end at most this old. */
        maxQuarterAgeDays: Days,
      })
      .strict(),
  })
  .strict();
export type FreshnessLimits = z.infer<typeof FreshnessLimits>;

export const DEFAULT_LIMITS: FreshnessLimits = Object.freeze({
  articles: Object.freeze({ maxGenerationAgeDays: 7, maxLatestArticleAgeDays: 7 }),
  calendar: Object.freeze({ maxVerificationAgeDays: 100, minCoverageDays: 30 }),
  'smart-money': Object.freeze({ maxGenerationAgeDays: 14, maxQuarterAgeDays: 180 }),
});

/** The `freshness:` section of a config file: any subset of the limits; unknown keys are refused. */
export const FreshnessLimitsOverride = z
  .object({
    articles: FreshnessLimits.shape.articles.partial().optional(),
    calendar: FreshnessLimits.shape.calendar.partial().optional(),
    'smart-money': FreshnessLimits.shape['smart-money'].partial().optional(),
  })
  .strict();
export type FreshnessLimitsOverride = z.infer<typeof FreshnessLimitsOverride>;

/** A whole pdsnap config file (pdsnap.config.yaml): freshness limits and drift thresholds. Unknown keys are refused so a typo is never ignored. */
export const PdsnapConfig = z.object({ freshness: FreshnessLimitsOverride.optional(), drift: DriftThresholdsOverride.optional() }).strict();
export type PdsnapConfig = z.infer<typeof PdsnapConfig>;

export function applyLimitOverrides(
  override: FreshnessLimitsOverride | undefined,
  base: FreshnessLimits = DEFAULT_LIMITS,
): FreshnessLimits {
  return {
    articles: { ...base.articles, ...override?.articles },
    calendar: { ...base.calendar, ...override?.calendar },
    'smart-money': { ...base['smart-money'], ...override?.['smart-money'] },
  };
}
