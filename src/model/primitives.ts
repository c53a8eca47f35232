import { z } from 'zod';

/** Slugs of articles and investors (docs/spec.md, Slugs). */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const Slug = (maxLength: number) => z.string().min(1).max(maxLength).regex(SLUG_PATTERN);

/** ISO 8601 UTC instant with milliseconds, e.g. 2026-11-22T08:30:00.000Z. */
export const Instant = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, 'expected an ISO 8601 UTC instant with milliseconds');

/** Calendar date, YYYY-MM-DD. */
export const IsoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a YYYY-MM-DD date');

export const NonEmpty = z.string().min(1);

/** Whole US dollars or whole share counts: integers that JSON can carry exactly. */
export const WholeNumber = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
