import type { ContentCheckState } from './content-rules.js';
import type { DatasetName } from './dataset.js';
import type { FreshnessFacts } from './freshness.js';
import type { ResourceEntry, ServingIndexEntry } from './manifest.js';
import type { BuildNote, Rejection, SourceFile } from './report.js';

/** Where derivation pushes records; the publisher writes them to the bundle as they arrive. */
export interface RecordSink {
  add(resource: string, record: unknown): void;
  /**
   * Records that another thread checked and serialized exactly as `add` would have (the lines of a
   * batch of them), to be written after every record given before; see CheckedBatch.
   */
  addChecked(batch: CheckedBatch): PlacedLines[];
}

/**
 * Where a run of lines went in the bundle: `bytes` bytes of part number `part` of the resource, from
 * byte `start` (a derivation cache keeps this, to read the lines back from the published part).
 */
export interface PlacedLines {
  resource: string;
  part: number;
  start: number;
  bytes: number;
}

/** Whole canonical NDJSON lines of one resource, in order. */
export interface CheckedLines {
  resource: string;
  /** How many lines (records) `bytes` holds. */
  records: number;
  bytes: Uint8Array;
  /** What the publisher's serving index needs of them beyond where they go, as the publisher made it. */
  facts?: unknown;
}

/**
 * A batch of records made into lines by another thread, with the checks the publisher applies to
 * every record: the content rules' findings (records numbered from 0 in the batch, per resource),
 * and the first record that failed its schema, if one did (the lines then end before it, and the
 * publisher fails the build naming it).
 */
export interface CheckedBatch {
  lines: CheckedLines[];
  content: ContentCheckState;
  invalid?: { resource: string; index: number; reason: string };
}

/** What derivation learned while it wrote the records. */
export interface DerivedFacts {
  /** Facts for the freshness rules, except generatedAt, which the pipeline sets. */
  facts: Omit<FreshnessFacts, 'generatedAt'>;
  rejections: Rejection[];
  notes: BuildNote[];
  /**
   * What derivation left out by rule, in words ("3 investor(s) left out by the 180-day quarter rule"):
   * when nothing is left to publish, this is the cause the build report gives. Absent when nothing was.
   */
  leftOut?: string;
}

/**
 * One dataset after ingest: what was read, what was rejected, and a derive step that streams the
 * records into a sink. Streaming keeps a full-size Smart Money build from holding every record.
 */
export interface DatasetBuild {
  dataset: DatasetName;
  sources: SourceFile[];
  rejections: Rejection[];
  notes: BuildNote[];
  derive(sink: RecordSink): DerivedFacts | Promise<DerivedFacts>;
  /**
   * Set when an earlier build derived from these very inputs (the derivation cache): the files it
   * published, which the store may still hold, and what derivation said then. When the store holds
   * them, nothing is derived or written again; otherwise derive() runs as usual.
   */
  reuse?: KeptDerivation;
  /** Keeps what this build derived for the next build of the same inputs, once it is published. */
  remember?(derivation: KeptDerivation): Promise<void>;
}

/** What a build derived, as the derivation cache keeps it: the published files and what derivation reported. */
export interface KeptDerivation {
  files: ResourceEntry[];
  servingIndex?: ServingIndexEntry;
  derived: DerivedFacts;
  /** The content rules' findings over the records (ContentCheck.state()). */
  content: ContentCheckState;
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
