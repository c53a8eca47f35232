import { z } from 'zod';
import { DatasetName } from './dataset.js';
import { FreshnessFacts } from './freshness.js';
import { Instant } from './primitives.js';
import { SourceFile } from './report.js';

export const MANIFEST_FORMAT = 1;

/** `<dataset>-<yyyymmddThhmmssZ of generatedAt>-<first 12 hex of the content digest>` */
export const SNAPSHOT_ID_PATTERN = /^(articles|calendar|smart-money)-\d{8}T\d{6}Z-[0-9a-f]{12}$/;
export const SnapshotId = z.string().regex(SNAPSHOT_ID_PATTERN);

export const ResourceEntry = z
  .object({
    path: z.string().regex(/^[a-z-]+\.json$/),
    bytes: z.number().int().min(0),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    records: z.number().int().min(0),
  })
  .strict();
export type ResourceEntry = z.infer<typeof ResourceEntry>;

export const Manifest = z
  .object({
    format: z.literal(MANIFEST_FORMAT),
    dataset: DatasetName,
    snapshotId: SnapshotId,
    generatedAt: Instant,
    facts: FreshnessFacts,
    /** Earliest instant at which a freshness rule fails. */
    freshUntil: Instant,
    /** Set when the build was told to publish a snapshot that failed freshness (--allow-stale). */
    allowStale: z.boolean(),
    sources: z.array(SourceFile),
    resources: z.array(ResourceEntry).min(1),
  })
  .strict();
export type Manifest = z.infer<typeof Manifest>;

/** current/<dataset>.json */
export const CurrentPointer = z
  .object({
    snapshotId: SnapshotId,
    publishedAt: Instant,
  })
  .strict();
export type CurrentPointer = z.infer<typeof CurrentPointer>;
