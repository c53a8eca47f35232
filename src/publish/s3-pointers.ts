import type { DatasetName } from '../model/dataset.js';
import { CurrentPointer } from '../model/manifest.js';
import { canonicalJson } from './canonical-json.js';
import { faultPoint } from '../lib/fault-point.js';
import { notJsonReason, safeJson } from './manifest-check.js';
import type { BucketObjects } from './s3-objects.js';
import { datasetOfSnapshotId } from './snapshot-id.js';
import { InvalidPointerError } from './store-errors.js';
import { formatZodIssues } from '../lib/zod-issues.js';

/**
 * `current/<dataset>/<12-digit sequence>~<generatedAt, yyyymmddThhmmssSSSZ>~<snapshotId>.json`: one
 * immutable record per pointer move. Records written before the generation was in the key,
 * `<sequence>~<snapshotId>.json`, are still read (their generation known to the second, from the id).
 */
const RECORD_NAME = /^(\d{12})~(?:(\d{8}T\d{9}Z)~)?([a-z-]+-(\d{8}T\d{6})Z-[0-9a-f]{12})\.json$/;

export interface PointerRecord {
  key: string;
  sequence: number;
  /** The snapshot's generatedAt as a sortable stamp, to the millisecond (to the second for older records). */
  generated: string;
  snapshotId: string;
}

/** generatedAt as it stands in a record's key: `2026-11-22T04:00:00.700Z` -> `20261122T040000700Z`. */
function generatedStamp(generatedAt: string): string {
  return generatedAt.replace(/[-:.]/g, '');
}

/**
 * The order of records, and so which one is current: by sequence, then, for writers that raced and
 * took the same sequence, by generation (the snapshot generated last wins, as in a folder store),
 * then by id.
 */
function compareRecords(a: PointerRecord, b: PointerRecord): number {
  return a.sequence - b.sequence || compare(a.generated, b.generated) || compare(a.snapshotId, b.snapshotId);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The current pointer as the records say, or why it cannot be used. */
export interface PointerReading {
  pointer: CurrentPointer | null;
  /** Set when the newest record is not a valid pointer: what is wrong with it. */
  broken: InvalidPointerError | null;
  newest: PointerRecord | null;
}

/**
 * The pointers of a bucket store. S3 has no rename and, on many servers, no conditional write, so
 * a pointer is never replaced: each move adds an immutable record, and the last record in the
 * order of compareRecords is current: by sequence, then by the generation written into the key, so
 * two writers that race and pick the same sequence end with the same winner, the snapshot
 * generated last (to the millisecond), whatever order their writes land in. `current/<dataset>.json` is a copy of the
 * winning record that servers poll with a conditional GET; it is only a hint, never the truth.
 */
export class PointerLog {
  constructor(
    private readonly objects: BucketObjects,
    private readonly prefix: string,
  ) {}

  headKey(dataset: DatasetName): string {
    return `${this.prefix}current/${dataset}.json`;
  }

  private recordsPrefix(dataset: DatasetName): string {
    return `${this.prefix}current/${dataset}/`;
  }

  /** Every record of a dataset, oldest first; other keys under the prefix are ignored. */
  async records(dataset: DatasetName): Promise<PointerRecord[]> {
    const { objects } = await this.objects.list(this.recordsPrefix(dataset));
    const records: PointerRecord[] = [];
    for (const { key } of objects) {
      const match = RECORD_NAME.exec(key.slice(this.recordsPrefix(dataset).length));
      if (match) records.push({ key, sequence: Number(match[1]), generated: match[2] ?? `${match[4]}000Z`, snapshotId: match[3]! });
    }
    return records.sort(compareRecords);
  }

  async read(dataset: DatasetName): Promise<PointerReading> {
    const records = await this.records(dataset);
    const newest = records.at(-1) ?? null;
    if (!newest) return { pointer: null, broken: null, newest: null };
    const url = this.objects.url(newest.key);
    const got = await this.objects.getText(newest.key);
    // Deleted between the list and the get: only gc deletes records, and never the newest.
    if (got === null || got === 'unchanged')
      return { pointer: null, broken: new InvalidPointerError(url, 'vanished while being read'), newest };
    const parsed = CurrentPointer.safeParse(safeJson(got.text));
    if (!parsed.success) {
      return {
        pointer: null,
        broken: new InvalidPointerError(url, notJsonReason(got.text) ?? formatZodIssues(parsed.error)),
        newest,
      };
    }
    if (parsed.data.snapshotId !== newest.snapshotId || datasetOfSnapshotId(newest.snapshotId) !== dataset) {
      return {
        pointer: null,
        broken: new InvalidPointerError(url, `names ${parsed.data.snapshotId}, not the snapshot of its key`),
        newest,
      };
    }
    return { pointer: parsed.data, broken: null, newest };
  }

  /**
   * Moves the pointer: adds a record after `after` and refreshes the head. Returns the record that
   * is current once the write has landed: this one, or a concurrent writer's that sorts after it.
   */
  async move(
    dataset: DatasetName,
    pointer: CurrentPointer,
    generatedAt: string,
    after: PointerRecord | null,
  ): Promise<{ mine: PointerRecord; winner: PointerRecord }> {
    const sequence = (after?.sequence ?? 0) + 1;
    const generated = generatedStamp(generatedAt);
    const key = `${this.recordsPrefix(dataset)}${String(sequence).padStart(12, '0')}~${generated}~${pointer.snapshotId}.json`;
    // The key names the snapshot, so a refused write (the key exists) holds this very pointer.
    await this.objects.putText(key, `${canonicalJson(pointer)}\n`, { onlyIfAbsent: true });
    await faultPoint('pointer-recorded');
    const mine = { key, sequence, generated, snapshotId: pointer.snapshotId };
    const winner = await this.refreshHead(dataset);
    return { mine, winner: winner ?? mine };
  }

  /**
   * Copies the winning record to the head until a fresh list agrees with what was written, so that
   * the last head written by any writer is the final winner.
   */
  async refreshHead(dataset: DatasetName): Promise<PointerRecord | null> {
    for (;;) {
      const winner = (await this.records(dataset)).at(-1) ?? null;
      if (!winner) return null;
      const got = await this.objects.getText(winner.key);
      if (got === null || got === 'unchanged') return winner;
      await this.objects.putText(this.headKey(dataset), got.text);
      if ((await this.records(dataset)).at(-1)?.key === winner.key) return winner;
    }
  }

  /** The head's ETag when it changed since `etag` (or cannot be read); null while unchanged. */
  async headChanged(dataset: DatasetName, etag: string | undefined): Promise<string | null> {
    const got = await this.objects.getText(this.headKey(dataset), etag);
    if (got === 'unchanged') return null;
    return got?.etag ?? '';
  }

  /** Removes all but the newest `keep` records of a dataset (the history of pointer moves). */
  async prune(dataset: DatasetName, keep: number): Promise<string[]> {
    const records = await this.records(dataset);
    const old = records.slice(0, Math.max(0, records.length - keep));
    for (const record of old) await this.objects.delete(record.key);
    return old.map((r) => r.key);
  }
}
