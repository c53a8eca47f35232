import { z } from 'zod';
import { Instant } from './primitives.js';

export const RuleStatus = z.enum(['pass', 'warn', 'fail']);
export type RuleStatus = z.infer<typeof RuleStatus>;

/**
 * One evaluated rule (freshness, drift, the content rules of a bundle), as written in reports and
 * manifests.
 */
export const RuleResult = z
  .object({
    rule: z.string(),
    observed: z.string(),
    limit: z.string(),
    status: RuleStatus,
    /** Instant after which the rule fails; null when it does not depend on time. */
    failsAt: Instant.nullable(),
    message: z.string(),
  })
  .strict();
export type RuleResult = z.infer<typeof RuleResult>;
