import { ContentCheck } from '../model/content-rules.js';
import { DATASET_RESOURCES, type DatasetName } from '../model/dataset.js';
import type { CheckedBatch, PlacedLines, RecordSink } from '../model/dataset-build.js';
import { BundleFileWriter, type WrittenFiles } from './bundle-file-writer.js';
import { resourceSerializer } from './compiled-canonical.js';
import { resourceEncoder } from './compiled-canonical-bytes.js';
import { hasServingIndex } from './manifest-check.js';
import type { PartBoundaries } from './part-boundaries.js';
import { NdjsonLineWriter, RecordChecks } from './resource-writer.js';
import { type ServingLineFacts, servingFactsCollector } from './serving-index.js';

/**
 * The lines writers of one dataset's resources: each record checked (schema, content rules),
 * serialized and, with a serving index, described for it. What `stage` runs per record, and what a
 * thread that prepares records for it (CheckedBatch) runs, so that both make the same lines.
 */
export function lineWritersFor(
  dataset: DatasetName,
  checks: RecordChecks,
  output: { write(chunk: Parameters<BundleFileWriter['write']>[0]): void },
  maxPartBytes?: number,
): Map<string, NdjsonLineWriter> {
  const names = Object.keys(DATASET_RESOURCES[dataset]).sort();
  return new Map(
    names.map((name) => [
      name,
      new NdjsonLineWriter(
        name,
        output,
        checks,
        resourceSerializer(dataset, name),
        resourceEncoder(dataset, name),
        hasServingIndex(dataset) ? servingFactsCollector(name) : null,
        maxPartBytes,
      ),
    ]),
  );
}

/**
 * Everything a bundle being staged receives, written as it comes into its staging folder: records
 * one at a time (`add`: checked, serialized, appended), and batches of them that another thread
 * checked and serialized the same way (`addChecked`, the Smart Money workers'), appended after
 * what came before, their findings and record numbers following on. Synchronous: the deriving
 * thread (or the thread that takes the batches in, in order) does the writing.
 */
export class StagingWriter implements RecordSink {
  readonly content: ContentCheck;
  private readonly checks: RecordChecks;
  private readonly files: BundleFileWriter;
  private readonly writers: Map<string, NdjsonLineWriter>;

  constructor(
    directory: string,
    private readonly dataset: DatasetName,
    boundaries: PartBoundaries,
    /** Whether a part of these bytes must be forced to disk (BundleFileWriter). */
    mustSync?: (sha256: string) => boolean,
  ) {
    this.content = new ContentCheck(dataset);
    this.checks = new RecordChecks(dataset, this.content);
    this.files = new BundleFileWriter(directory, dataset, boundaries, mustSync);
    this.writers = lineWritersFor(dataset, this.checks, this.files, boundaries.maxBytes);
  }

  add(resource: string, record: unknown): void {
    this.writerOf(resource).write(record);
  }

  addChecked(batch: CheckedBatch): PlacedLines[] {
    const placed: PlacedLines[] = [];
    for (const lines of batch.lines) {
      // Whatever was added one by one before comes first.
      this.writerOf(lines.resource).end();
      const spans = this.files.write({
        resource: lines.resource,
        records: lines.records,
        bytes: lines.bytes,
        ...(lines.facts === undefined ? {} : { facts: lines.facts as ServingLineFacts }),
      });
      placed.push(...spans);
    }
    this.checks.absorb(batch);
    return placed;
  }

  /** Writes what is pending, ends every part and finishes the serving index. */
  finish(): WrittenFiles {
    for (const writer of this.writers.values()) writer.end();
    return this.files.finish([...this.writers.keys()]);
  }

  /** Waits for the parts being forced to disk; throws the first failure to (BundleFileWriter.flushed). */
  flushed(): Promise<void> {
    return this.files.flushed();
  }

  /** The paths of the parts forced to disk (once flushed() resolves). */
  get synced(): ReadonlySet<string> {
    return this.files.synced;
  }

  /** Closes what is open after a failure; the caller removes the staging folder. */
  abandon(): void {
    this.files.abandon();
  }

  private writerOf(resource: string): NdjsonLineWriter {
    const writer = this.writers.get(resource);
    if (!writer) throw new Error(`dataset ${this.dataset} has no resource ${resource}`);
    return writer;
  }
}
