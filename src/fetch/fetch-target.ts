import type { ContentCheck } from './content-checks.js';

/** What is fetched: EDGAR's form indexes, full submissions and Form 13F data sets, feeds, provider exports. */
export type SourceKind = 'form-index' | 'filing' | 'form13f-dataset' | 'feed' | 'calendar-export';

/** One file to bring up to date under the sources root, from one address. */
export interface FetchTarget {
  kind: SourceKind;
  url: string;
  /** Where it goes, relative to the sources root with forward slashes: the file `build` reads. */
  path: string;
  /** Request headers from the configuration (secrets among them): sent to the configured origin only, never shown. */
  headers: Readonly<Record<string, string>>;
  /** Ask with the validators of the copy on disk (ETag, Last-Modified): an unchanged file costs a 304. */
  conditional: boolean;
  /** What the body must be before it replaces the last good copy. */
  check: ContentCheck | null;
  /** When set, a 404 means "not published yet" and the target is skipped for this reason. */
  missingReason?: string;
}
