import { createHash } from 'node:crypto';
import type { ConsensusHolding, InvestorPlan } from '../../derive/smart-money/index.js';
import { codeFingerprint } from '../../lib/code-fingerprint.js';
import type { KeyedCache } from '../../lib/keyed-file-cache.js';
import type { ContentCheckState } from '../../model/content-rules.js';
import type { CheckedLines, PlacedLines } from '../../model/dataset-build.js';
import { PART_PATH, type ResourceEntry } from '../../model/manifest.js';
import type { SourceFile } from '../../model/report.js';
import type { SnapshotStore } from '../../publish/snapshot-store.js';
import { type PackedHoldings, unpackHoldings } from './packed-holdings.js';
import type { ResourceLinesDigest, SmartMoneyBatch } from './smart-money-batch.js';

/**
 * The derivation cache of investor batches: what a build derived for a batch of investors, kept
 * under the digest of everything that batch depends on (its plans, the digests of the sources its
 * filings come from, the code), so that a day when a few filings arrived derives only the batches
 * they touch. Batches are cut by content (investor-batches.ts), so an investor added or changed
 * leaves the other batches, and their keys, as they were.
 *
 * An entry keeps what the batch came to besides its lines (how its lines were chunked and what the
 * serving index needs of them, the content rules' findings, its investors' consensus holdings, the
 * digest of each resource's lines). The lines themselves are not copied: they are in the parts the
 * last build published, and a second record (the places, one per store) says where: the blob, the
 * byte they start at and how many. A batch is reused only when its entry, its places and the bytes
 * read there (checked against the entry's digests) are all whole; otherwise it is derived again.
 */
const ENTRY = 'investor-batch';
const PLACES = 'investor-batch-places';

/** A batch's chunks as derivation handed them over: replayed in the same order, they write the same bundle. */
interface KeptChunk {
  resource: string;
  records: number;
  bytes: number;
  facts?: unknown;
}

interface KeptBatch {
  investors: number;
  oldestPeriod?: string;
  content: ContentCheckState;
  chunks: KeptChunk[];
  resources: ResourceLinesDigest[];
  holdings: PackedHoldings;
}

/** Where a resource's lines of a batch are in published blobs, in order. */
interface KeptPlaces {
  resource: string;
  spans: Array<{ sha256: string; start: number; bytes: number }>;
}

/** A batch taken from the cache: its lines as derivation would have handed them over, and its consensus holdings. */
export interface ReusedBatch {
  batch: SmartMoneyBatch;
  holdings: Array<[slug: string, holdings: ConsensusHolding[]]>;
}

export interface InvestorBatchCacheOptions {
  cache: KeyedCache;
  /** Where the published parts are read back from. */
  store: Pick<SnapshotStore, 'location' | 'readBlobRange'>;
  /** Every file ingest may read, with its digest. */
  sources: readonly SourceFile[];
}

export class InvestorBatchCache {
  private readonly sourceDigests: SourceDigests;
  private readonly placesKey: string;
  private readonly writing: Promise<void>[] = [];
  /** This build's batches, in order, and where their lines went: the places of the next build. */
  private readonly placed: Array<{ key: string; lines: PlacedLines[] }> = [];

  private constructor(
    private readonly options: InvestorBatchCacheOptions,
    private readonly places: Map<string, KeptPlaces[]>,
  ) {
    this.sourceDigests = new SourceDigests(options.sources);
    this.placesKey = placesKeyOf(options.store.location);
  }

  static async open(options: InvestorBatchCacheOptions): Promise<InvestorBatchCache> {
    const bytes = await options.cache.get(PLACES, placesKeyOf(options.store.location));
    let places = new Map<string, KeptPlaces[]>();
    if (bytes !== null) {
      try {
        places = new Map(Object.entries(JSON.parse(bytes.toString('utf8')) as Record<string, KeptPlaces[]>));
      } catch {
        // A places record that does not parse counts as none: every batch is derived.
      }
    }
    return new InvestorBatchCache(options, places);
  }

  /** The key of a batch of investors (consecutive plans); null when a source of theirs is not among the inputs (never kept). */
  keyOf(plans: readonly InvestorPlan[]): string | null {
    const sources = new Set<string>();
    for (const plan of plans) {
      for (const effective of [plan.current, plan.previous]) {
        if (effective === null) continue;
        sources.add(effective.base.source);
        for (const filing of effective.additions) sources.add(filing.source);
      }
    }
    const digests: Array<[string, string]> = [];
    for (const source of [...sources].sort()) {
      const digest = this.sourceDigests.of(source);
      if (digest === null) return null;
      digests.push([source, digest]);
    }
    // --strict is not part of it: it decides which filings are accepted, which the plans name, not what an accepted filing holds.
    const described = JSON.stringify({ kind: ENTRY, code: codeFingerprint(), plans, sources: digests });
    return createHash('sha256').update(described).digest('hex');
  }

  /** True when the last build recorded where this batch's lines are: load() will likely find it whole. */
  mayHold(key: string): boolean {
    return this.places.has(key);
  }

  /** The batch under `key`, its lines read from the published parts and checked; null when any of it is missing or damaged. */
  async load(key: string): Promise<ReusedBatch | null> {
    const places = this.places.get(key);
    if (places === undefined) return null;
    const payload = await this.options.cache.get(ENTRY, key);
    if (payload === null) return null;
    let kept: KeptBatch;
    let holdings: ReusedBatch['holdings'];
    try {
      kept = JSON.parse(payload.toString('utf8')) as KeptBatch;
      holdings = [...unpackHoldings(kept.holdings)];
    } catch {
      return null;
    }
    const bytesOf = new Map<string, Uint8Array>();
    for (const resource of kept.resources) {
      const spans = places.find((place) => place.resource === resource.resource)?.spans;
      if (spans === undefined) return null;
      const read = await this.readSpans(spans);
      if (read === null || read.length !== resource.bytes || createHash('sha256').update(read).digest('hex') !== resource.sha256)
        return null;
      bytesOf.set(resource.resource, read);
    }
    const lines: CheckedLines[] = [];
    const at = new Map<string, number>();
    for (const chunk of kept.chunks) {
      const all = bytesOf.get(chunk.resource);
      const start = at.get(chunk.resource) ?? 0;
      if (all === undefined || start + chunk.bytes > all.length) return null;
      lines.push({
        resource: chunk.resource,
        records: chunk.records,
        bytes: all.subarray(start, start + chunk.bytes),
        ...(chunk.facts === undefined ? {} : { facts: chunk.facts }),
      });
      at.set(chunk.resource, start + chunk.bytes);
    }
    return {
      batch: {
        lines,
        content: kept.content,
        investors: kept.investors,
        ...(kept.oldestPeriod === undefined ? {} : { oldestPeriod: kept.oldestPeriod }),
      },
      holdings,
    };
  }

  /**
   * Notes a batch as written, with where its lines went; a batch derived in this build (it carries
   * what the cache needs) is kept under its key, written while the build goes on.
   */
  keep(key: string, batch: SmartMoneyBatch, lines: PlacedLines[]): void {
    this.placed.push({ key, lines });
    if (batch.forCache === undefined) return;
    const kept: KeptBatch = {
      investors: batch.investors,
      ...(batch.oldestPeriod === undefined ? {} : { oldestPeriod: batch.oldestPeriod }),
      content: batch.content,
      chunks: batch.lines.map((chunk) => ({
        resource: chunk.resource,
        records: chunk.records,
        bytes: chunk.bytes.length,
        ...(chunk.facts === undefined ? {} : { facts: chunk.facts }),
      })),
      resources: batch.forCache.resources,
      holdings: batch.forCache.holdings,
    };
    this.writing.push(this.options.cache.put(ENTRY, key, Buffer.from(JSON.stringify(kept)), { trim: false }));
  }

  /**
   * Once the bundle is published: records where each batch's lines are, by the blobs of its parts,
   * for the next build (a bundle that was not published leaves the places of the last one).
   */
  async remember(files: readonly ResourceEntry[]): Promise<void> {
    await Promise.all(this.writing);
    const blobOf = new Map<string, string>();
    for (const file of files) {
      const match = PART_PATH.exec(file.path);
      if (match) blobOf.set(`${match[1]}/${Number(match[2])}`, file.sha256);
    }
    const places: Record<string, KeptPlaces[]> = {};
    for (const { key, lines } of this.placed) {
      const byResource = new Map<string, KeptPlaces>();
      for (const line of lines) {
        const sha256 = blobOf.get(`${line.resource}/${line.part}`);
        if (sha256 === undefined) return; // Not this build's parts: keep the last places.
        let place = byResource.get(line.resource);
        if (place === undefined) {
          place = { resource: line.resource, spans: [] };
          byResource.set(line.resource, place);
        }
        const last = place.spans.at(-1);
        if (last !== undefined && last.sha256 === sha256 && last.start + last.bytes === line.start) last.bytes += line.bytes;
        else place.spans.push({ sha256, start: line.start, bytes: line.bytes });
      }
      places[key] = [...byResource.values()];
    }
    await this.options.cache.put(PLACES, this.placesKey, Buffer.from(JSON.stringify(places)), { trim: false });
    await this.options.cache.trim();
  }

  private async readSpans(spans: KeptPlaces['spans']): Promise<Uint8Array | null> {
    const pieces: Uint8Array[] = [];
    for (const span of spans) {
      const piece = await this.options.store.readBlobRange(span.sha256, span.start, span.bytes);
      if (piece === null) return null;
      pieces.push(piece);
    }
    return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
  }
}

function placesKeyOf(storeLocation: string): string {
  return createHash('sha256').update(`${PLACES}\0${storeLocation}`).digest('hex');
}

/**
 * The digest of a filing's source as ingest names it: a file's own, or, for a folder (a data set's
 * extracted TSVs, an EDGAR filing's folder), one over every file under it.
 */
class SourceDigests {
  private readonly under = new Map<string, SourceFile[]>();
  private readonly memo = new Map<string, string>();

  constructor(files: readonly SourceFile[]) {
    for (const file of files) {
      for (let at = file.path.length; at > 0; at = file.path.lastIndexOf('/', at - 1)) {
        const prefix = file.path.slice(0, at);
        const listed = this.under.get(prefix);
        if (listed === undefined) this.under.set(prefix, [file]);
        else listed.push(file);
      }
    }
  }

  /** Null for a source no input file is or is under. */
  of(source: string): string | null {
    let digest = this.memo.get(source);
    if (digest === undefined) {
      const under = this.under.get(source);
      if (under === undefined) return null;
      const files = under.map((file) => [file.path, file.sha256]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
      digest = createHash('sha256').update(JSON.stringify(files)).digest('hex');
      this.memo.set(source, digest);
    }
    return digest;
  }
}
