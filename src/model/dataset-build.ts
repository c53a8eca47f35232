import type { DatasetName } from './dataset.js';
import type { FreshnessFacts } from './freshness.js';
import type { BuildNote, Rejection, SourceFile } from './report.js';

/** What ingest + derive make of one dataset's sources, before validation and publishing. */
export interface DatasetBuild {
  dataset: DatasetName;
  /** Resource file name -> records (a JSON array), in publishing order. */
  resources: Record<string, unknown[]>;
  /** Facts for the freshness rules, except generatedAt, which the pipeline sets. */
  facts: Omit<FreshnessFacts, 'generatedAt'>;
  sources: SourceFile[];
  rejections: Rejection[];
  notes: BuildNote[];
}

/** What an ingester returns: records it could read, and everything it could not. */
export interface IngestResult<T> {
  records: T[];
  rejections: Rejection[];
  notes: BuildNote[];
  sources: SourceFile[];
}

/** A record with where it came from, so later checks (duplicates) can name the source. */
export interface Sourced<T> {
  record: T;
  source: string;
  location: string;
}
