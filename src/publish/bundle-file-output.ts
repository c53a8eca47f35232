import { wholeNumberFromEnv } from '../lib/env-number.js';
import type { DatasetName } from '../model/dataset.js';
import { BundleFileThread, bundleFileThreadAvailable } from './bundle-file-thread.js';
import { BundleFileWriter, type LineChunk, type WrittenFiles } from './bundle-file-writer.js';
import { hasServingIndex } from './manifest-check.js';

/** Where a staging bundle's NDJSON chunks go: a BundleFileWriter, here or on a thread of its own. */
export interface BundleFileOutput {
  /** Hands over a chunk; an error of an earlier chunk on another thread may surface here. */
  write(chunk: LineChunk): void;
  finish(resources: readonly string[]): Promise<WrittenFiles>;
  abandon(): Promise<void>;
}

/** PDSNAP_WRITER_THREAD: 0 writes a bundle's files on the deriving thread; 1 (the default) may use a thread. */
export function writerThreadAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
  return wholeNumberFromEnv(env, 'PDSNAP_WRITER_THREAD', '0 or 1', (value) => value === 0 || value === 1) !== 0;
}

/**
 * The output of one staging bundle, chosen at its first chunk. A bundle with a serving index whose
 * records fill a first chunk (about 1 MB of lines, or a part ended) is written on a thread of its
 * own: part writes and hashing, the index inserts and the index's digest then run beside derivation
 * instead of after each record (a full-size Smart Money build, docs/performance.md). A bundle that ends before its first chunk (the sample, articles, calendar)
 * is written here, without starting a thread.
 */
export class StagingBundleOutput implements BundleFileOutput {
  private output: BundleFileOutput | null = null;
  private recordsEnded = false;

  constructor(
    private readonly directory: string,
    private readonly dataset: DatasetName,
    private readonly maxPartBytes: number,
  ) {}

  /** Every record is in: the chunks still to come are the last ones, not worth a thread. */
  endOfRecords(): void {
    this.recordsEnded = true;
  }

  write(chunk: LineChunk): void {
    this.output ??=
      !this.recordsEnded && hasServingIndex(this.dataset) && bundleFileThreadAvailable() && writerThreadAllowed()
        ? new BundleFileThread(this.directory, this.dataset, this.maxPartBytes)
        : this.local();
    this.output.write(chunk);
  }

  finish(resources: readonly string[]): Promise<WrittenFiles> {
    this.output ??= this.local();
    return this.output.finish(resources);
  }

  async abandon(): Promise<void> {
    await this.output?.abandon();
  }

  private local(): BundleFileOutput {
    const writer = new BundleFileWriter(this.directory, this.dataset, this.maxPartBytes);
    return {
      write: (chunk) => writer.write(chunk),
      finish: async (resources) => writer.finish(resources),
      abandon: async () => writer.abandon(),
    };
  }
}
