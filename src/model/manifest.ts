import { z } from 'zod';
import { DatasetName } from './dataset.js';
import { FreshnessFacts } from './freshness.js';
import { RuleResult } from './rule-result.js';
import { Instant } from './primitives.js';
import { SourceFile } from './report.js';

/**
 * 4: the files a manifest lists are blobs of the store, named by their SHA-256 and shared by every
 * bundle that lists the same bytes; the bundle's own folder holds its manifest only.
 * 3: a Smart Money bundle also carries its serving index (`serving-index.sqlite`).
 * 2: resources are NDJSON parts (`<resource>/<part>.ndjson`), listed one file each. Format 1 held
 * each resource as one JSON array, which a full quarter of trades made too large to read.
 */
export const MANIFEST_FORMAT = 4;
/** The formats this pdsnap reads: 3 keeps its files in the bundle's folder, by name. */
export const READ_FORMATS: readonly number[] = [3, 4];

/** `<dataset>-<yyyymmddThhmmssZ of generatedAt>-<first 12 hex of the content digest>` */
export const SNAPSHOT_ID_PATTERN = /^(articles|calendar|smart-money)-\d{8}T\d{6}Z-[0-9a-f]{12}$/;
const SnapshotId = z.string().regex(SNAPSHOT_ID_PATTERN);

/** One file of a bundle: `<resource>/<5-digit part>.ndjson`, one canonical JSON record per line. */
export const PART_PATH = /^([a-z-]+)\/(\d{5})\.ndjson$/;

export const ResourceEntry = z
  .object({
    path: z.string().regex(PART_PATH),
    bytes: z.number().int().min(0),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    records: z.number().int().min(0),
  })
  .strict();
export type ResourceEntry = z.infer<typeof ResourceEntry>;

/** The resource a bundle file belongs to. */
export function resourceOfPath(file: string): string {
  return PART_PATH.exec(file)?.[1] ?? '';
}

/** Records per resource, summed over its parts, as a manifest lists them. */
export function recordsPerResource(files: readonly ResourceEntry[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const file of files) counts[resourceOfPath(file.path)] = (counts[resourceOfPath(file.path)] ?? 0) + file.records;
  return counts;
}

/**
 * Who accepted what: the reason given to --accept-drift, the snapshot compared with, and the
 * checks that failed, with their figures. In the manifest (build) or the store's accepted/ folder (promote).
 */
export const DriftAcceptance = z
  .object({
    reason: z.string().min(1),
    /** build or promote */
    by: z.enum(['build', 'promote']),
    acceptedAt: Instant,
    baseline: SnapshotId,
    checks: z.array(RuleResult).min(1),
  })
  .strict();
export type DriftAcceptance = z.infer<typeof DriftAcceptance>;

/** The bundle's serving index: the file `serve` opens instead of loading records (docs/serving.md). */
export const SERVING_INDEX_PATH = 'serving-index.sqlite';
export const ServingIndexEntry = z
  .object({
    path: z.literal(SERVING_INDEX_PATH),
    bytes: z.number().int().min(0),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    /** The layout of its tables; a server refuses a layout it does not know. */
    schema: z.number().int().min(1),
    /**
     * The digest of each `bytes`-long chunk, in order (the last may be shorter), so that a server
     * can verify the file on every core at once before it serves it. Bundles built before it was
     * added lack it; they are verified by the whole-file digest alone.
     */
    chunks: z
      .object({
        bytes: z.number().int().min(1),
        sha256: z.array(z.string().regex(/^[0-9a-f]{64}$/)),
      })
      .strict()
      .optional(),
  })
  .strict();
export type ServingIndexEntry = z.infer<typeof ServingIndexEntry>;

export const Manifest = z
  .object({
    format: z.union([z.literal(3), z.literal(MANIFEST_FORMAT)]),
    dataset: DatasetName,
    snapshotId: SnapshotId,
    generatedAt: Instant,
    facts: FreshnessFacts,
    /** Earliest instant at which a freshness rule fails. */
    freshUntil: Instant,
    /** Set when the build was told to publish a snapshot that failed freshness (--allow-stale). */
    allowStale: z.boolean(),
    /** Set when drift checks failed and the build was told to publish anyway (--accept-drift). */
    acceptedDrift: DriftAcceptance.optional(),
    sources: z.array(SourceFile),
    /** Every file of the bundle, by resource, then part. */
    files: z.array(ResourceEntry).min(1),
    /**
     * Smart Money only. Derived from the resources, so it takes no part in the snapshot id: its
     * bytes depend on the SQLite library that wrote it, the id only on the content.
     */
    servingIndex: ServingIndexEntry.optional(),
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
