import { NEWLINE } from '../../lib/json-bytes.js';
import { createHash } from 'node:crypto';
import type { InvestorPlan } from '../../derive/smart-money/index.js';
import { codeFingerprint } from '../../lib/code-fingerprint.js';
import type { KeyedCache } from '../../lib/keyed-file-cache.js';
import type { PlacedLines } from '../../model/dataset-build.js';
import { PART_PATH, type ResourceEntry } from '../../model/manifest.js';
import type { SourceFile } from '../../model/report.js';
import type { SnapshotStore } from '../../publish/snapshot-store.js';
import { reusedBatch } from './kept-batch.js';
import type { SmartMoneyBatch } from './smart-money-batch.js';

/**
 * The derivation cache of investor batches: what a build derived for a batch of investors, kept
 * under the digest of everything that batch depends on (its plans, the digests of the sources its
 * filings come from, the code), so that a day when a few filings arrived derives only the batches
 * they touch. Batches are cut by content (investor-batches.ts), so an investor added or changed
 * leaves the other batches, and their keys, as they were.
 *
 * An entry keeps what the batch came to besides its lines (kept-batch.ts). The lines themselves are
 * not copied: they are in the parts the last build published, and a second record (the places,
 * one per store) says where: the blob, its size, the byte they start at and how many. A batch is
 * reused only when its entry and the places (each checked by the cache's own digest) and the parts
 * its lines are in (each read whole once and checked against the digest that names it) are there,
 * and the lines found there are whole lines, as many as the entry says; otherwise it is derived again.
 */
const ENTRY = 'investor-batch';
const PLACES = 'investor-batch-places';

/** Where a resource's lines of a batch are in published blobs (of `partBytes` bytes each), in order. */
interface KeptPlaces {
  resource: string;
  spans: Array<{ sha256: string; partBytes: number; start: number; bytes: number }>;
}

/** A batch's entry and its lines as read back, for kept-batch.ts's reusedBatch. */
export interface FetchedBatch {
  entry: Uint8Array;
  lines: Map<string, Uint8Array>;
}

/** Parts read back and checked, kept for the next batches: consecutive batches share the part between them. */
const VERIFIED_PARTS_KEPT = 16;

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
  /** Entries of the batches this build derived, kept once the bundle is published (remember). */
  private readonly derived: Array<{ key: string; entry: Buffer }> = [];
  /** This build's batches, in order, and where their lines went: the places of the next build. */
  private readonly placed: Array<{ key: string; lines: PlacedLines[] }> = [];
  /** The last parts read back and checked, by digest (promises: batches are read ahead, concurrently). */
  private readonly parts = new Map<string, Promise<Uint8Array | null>>();

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

  /** True when the last build recorded where this batch's lines are: fetch() will likely find it whole. */
  mayHold(key: string): boolean {
    return this.places.has(key);
  }

  /**
   * The entry under `key` and its lines, read from the published parts; null when the entry or a
   * part is missing, damaged or cannot be read (a cache never fails a build: the batch is derived).
   */
  async fetch(key: string): Promise<FetchedBatch | null> {
    return this.read(key).catch(() => null);
  }

  private async read(key: string): Promise<FetchedBatch | null> {
    const places = this.places.get(key);
    if (!Array.isArray(places)) return null;
    const kept = await this.options.cache.get(ENTRY, key);
    if (kept === null) return null;
    // Buffers of their own: they may be transferred to a worker thread.
    const entry = new Uint8Array(kept);
    const lines = new Map<string, Uint8Array>();
    for (const { resource, spans } of places) {
      const bytes = new Uint8Array(spans.reduce((sum, span) => sum + span.bytes, 0));
      let at = 0;
      for (const span of spans) {
        const part = await this.verifiedPart(span.sha256, span.partBytes);
        // The lines must begin where a line begins: what reusedBatch checks next is their count and end.
        if (part === null || span.start + span.bytes > part.length || (span.start > 0 && part[span.start - 1] !== NEWLINE)) return null;
        bytes.set(part.subarray(span.start, span.start + span.bytes), at);
        at += span.bytes;
      }
      lines.set(resource, bytes);
    }
    return { entry, lines };
  }

  /** fetch() and kept-batch.ts's reusedBatch at once, for a build that reuses on its main thread. */
  async load(key: string): Promise<ReturnType<typeof reusedBatch>> {
    const fetched = await this.fetch(key);
    return fetched === null ? null : reusedBatch(fetched.entry, fetched.lines);
  }

  /**
   * Notes a batch as written, with where its lines went, and the entry of a batch derived in this
   * build; both are kept once the bundle is published (remember): written then, they neither
   * compete with derivation for the disk nor outlive a build that published nothing.
   */
  keep(key: string, batch: SmartMoneyBatch, lines: PlacedLines[]): void {
    this.placed.push({ key, lines });
    if (batch.keptEntry !== undefined) {
      this.derived.push({ key, entry: Buffer.from(batch.keptEntry.buffer, batch.keptEntry.byteOffset, batch.keptEntry.length) });
    }
  }

  /**
   * Once the bundle is published: keeps the entries of the batches derived, and records where each
   * batch's lines are, by the blobs of its parts, for the next build (a bundle that was not
   * published leaves the places of the last one). Nothing is trimmed here: the derivation's own
   * entry, kept right after (recipes.ts), trims the cache once for both.
   */
  async remember(files: readonly ResourceEntry[]): Promise<void> {
    for (const { key, entry } of this.derived) await this.options.cache.put(ENTRY, key, entry, { trim: false });
    const partOf = new Map<string, ResourceEntry>();
    for (const file of files) {
      const match = PART_PATH.exec(file.path);
      if (match) partOf.set(`${match[1]}/${Number(match[2])}`, file);
    }
    const places: Record<string, KeptPlaces[]> = {};
    for (const { key, lines } of this.placed) {
      const byResource = new Map<string, KeptPlaces>();
      for (const line of lines) {
        const part = partOf.get(`${line.resource}/${line.part}`);
        if (part === undefined) return; // Not this build's parts: keep the last places.
        let place = byResource.get(line.resource);
        if (place === undefined) {
          place = { resource: line.resource, spans: [] };
          byResource.set(line.resource, place);
        }
        const last = place.spans.at(-1);
        if (last !== undefined && last.sha256 === part.sha256 && last.start + last.bytes === line.start) last.bytes += line.bytes;
        else place.spans.push({ sha256: part.sha256, partBytes: part.bytes, start: line.start, bytes: line.bytes });
      }
      places[key] = [...byResource.values()];
    }
    await this.options.cache.put(PLACES, this.placesKey, Buffer.from(JSON.stringify(places)), { trim: false });
  }

  /** A whole part, read once and checked against the digest that names it; null when the store lacks it or it differs. */
  private verifiedPart(sha256: string, bytes: number): Promise<Uint8Array | null> {
    let part = this.parts.get(sha256);
    if (part === undefined) {
      part = this.options.store
        .readBlobRange(sha256, 0, bytes)
        .then((read) => (read !== null && createHash('sha256').update(read).digest('hex') === sha256 ? read : null));
      this.parts.set(sha256, part);
      for (const old of this.parts.keys()) {
        if (this.parts.size <= VERIFIED_PARTS_KEPT) break;
        this.parts.delete(old);
      }
    }
    return part;
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
