import { z } from 'zod';
import { shapeOf, warnFail } from './core.js';

/**
 * A dataset's drift thresholds, as the config's `drift.<dataset>` section writes them: those of each
 * of its resources under `resources`, and the pairs of its own checks beside them. A config file
 * sets any subset; an unknown dataset, resource or name is refused, so a typo is never ignored.
 */

/** Thresholds of one resource, in percent of the snapshot compared with; null turns a check off. */
export const ResourceThresholds = z
  .object({
    /** Fewer records than the snapshot compared with, by more than this. */
    ...warnFail('shrink'),
    /** More records by more than this (a bad join duplicates rows). */
    ...warnFail('growth'),
    /** Share of the keys before that the candidate lacks. */
    ...warnFail('lostKeys'),
    /** Share of the candidate's keys that were not there before. */
    ...warnFail('newKeys'),
  })
  .strict();
export type ResourceThresholds = z.infer<typeof ResourceThresholds>;

/**
 * The defaults of a resource, chosen for real rebuilds: a daily rebuild ages out a few articles and
 * adds a few; a quarter-end rebuild brings new filings for most investors, moves some issuers in and
 * out of consensus and recomputes every trade. A partial download or a moved folder loses a quarter
 * or more of a resource at once, which these fail. Datasets adjust them per resource.
 */
export const STEADY: ResourceThresholds = {
  shrinkWarnPercent: 10,
  shrinkFailPercent: 25,
  growthWarnPercent: 50,
  growthFailPercent: 200,
  lostKeysWarnPercent: 10,
  lostKeysFailPercent: 25,
  newKeysWarnPercent: 50,
  newKeysFailPercent: null,
};

/**
 * The schema of a dataset's thresholds (every resource named, every pair of its own checks), and
 * the override a config file gives, derived from it: every key optional, each resource's too.
 */
export function datasetThresholds<const R extends string, P extends z.ZodRawShape>(resources: readonly R[], pairs: P) {
  const schema = z.object({ resources: z.object(shapeOf(resources, ResourceThresholds)).strict(), ...pairs }).strict();
  const override = schema.partial().extend({
    resources: z.object(shapeOf(resources, ResourceThresholds.partial().optional())).strict().optional(),
  });
  return { schema, override };
}

type Override<T extends { resources: Record<string, ResourceThresholds> }> = Partial<Omit<T, 'resources'>> & {
  resources?: { [R in keyof T['resources']]?: Partial<ResourceThresholds> | undefined } | undefined;
};

/** A dataset's defaults with a config file's override: per resource, then per pair of its own checks. */
export function withOverride<T extends { resources: Record<string, ResourceThresholds> }>(
  defaults: T,
  override: Override<T> | undefined,
): T {
  const resources: Record<string, ResourceThresholds> = {};
  for (const [name, limits] of Object.entries(defaults.resources)) resources[name] = { ...limits, ...override?.resources?.[name] };
  return { ...defaults, ...override, resources };
}
