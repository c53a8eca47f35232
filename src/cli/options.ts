import path from 'node:path';
import { z } from 'zod';
import { DATASETS, type DatasetName, isDatasetName } from '../model/dataset.js';
import { clockNow } from '../lib/clock.js';
import { nowRefusal, nowValueMs } from '../lib/time.js';
import { formatBucketLocation, isBucketLocation, parseBucketLocation } from '../publish/s3-location.js';
import { parseDuration } from '../lib/duration.js';
import { UsageError } from './errors.js';

export const DEFAULT_SOURCES = 'data/sources';
export const DEFAULT_STORE = 'data/snapshots';

/** Parses an option through a zod schema; a failure is the user's mistake (exit 3), named by option. */
export function parseOptions<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  // Two outputs asked for at once: which one a script gets must not depend on which option wins.
  const given = raw as { json?: unknown; format?: unknown } | null;
  if (given?.json === true && given.format !== undefined && given.format !== 'text') {
    throw new UsageError(`--json and --format ${String(given.format)} cannot go together: choose one`);
  }
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? `--${String(issue.path[0]).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: ` : '';
  throw new UsageError(`${where}${issue?.message ?? 'invalid options'}`);
}

/** --now: an ISO 8601 instant with an explicit zone (Z or ±hh:mm), or a calendar date; defaults to the clock. */
export const NowOption = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined) {
      try {
        return clockNow();
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }
    // One strict parser (lib/time.ts), shared with PDSNAP_CLOCK: a date that does not exist, such as
    // 2026-02-30, is refused, not rolled over.
    const ms = nowValueMs(value);
    if (ms === null) {
      ctx.addIssue({ code: 'custom', message: nowRefusal(value) });
      return z.NEVER;
    }
    return new Date(ms);
  });

/** The <dataset> argument of history, diff, promote and rollback; another name is the user's mistake. */
export function datasetArgument(text: string): DatasetName {
  if (!isDatasetName(text)) throw new UsageError(`unknown dataset "${text}"`);
  return text;
}

/** --datasets articles,calendar,smart-money */
export const DatasetsOption = z
  .string()
  .optional()
  .transform((value, ctx): DatasetName[] => {
    if (value === undefined) return [...DATASETS];
    const names = value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const unknown = names.filter((n) => !isDatasetName(n));
    if (unknown.length > 0 || names.length === 0) {
      ctx.addIssue({ code: 'custom', message: `unknown dataset "${unknown.join(',')}"; expected some of ${DATASETS.join(', ')}` });
      return z.NEVER;
    }
    return DATASETS.filter((d) => names.includes(d));
  });

export const DirOption = (fallback: string) =>
  z
    .string()
    .optional()
    .transform((value) => path.resolve(value ?? fallback));

/** --store: a folder (resolved to an absolute path) or a bucket, `s3://bucket/prefix`, kept as it is. */
export const StoreOption = (fallback: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || !isBucketLocation(value)) return path.resolve(value ?? fallback);
      try {
        return formatBucketLocation(parseBucketLocation(value));
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    });

/** --store of a command that works on a folder store only: a bucket is refused, not read as a path. */
export const FolderStoreOption = (fallback: string) =>
  z
    .string()
    .optional()
    .refine(
      (value) => value === undefined || !isBucketLocation(value),
      'this command works on a folder store only (not s3://); pdsnap sync copies a bucket to a folder',
    )
    .transform((value) => path.resolve(value ?? fallback));

/** --store's help, the same in every command. */
export const STORE_HELP = `bundle store: a folder or s3://bucket/prefix (default ${DEFAULT_STORE})`;

/** A duration option (`24h`, `7d`, `90m`, `1d12h`) in milliseconds. */
export const DurationOption = (fallback: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      try {
        return parseDuration(value ?? fallback);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    });
