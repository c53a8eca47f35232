import { JsonTextError, parseJsonText } from '../json-text.js';
import { parseYamlText as parseYaml, YamlTextError } from '../yaml-text.js';
import { readCurationMetadata, type CurationMetadata } from './curation-metadata.js';
import { SourceProblem } from '../source-problem.js';

/** One raw event of a source and where it sits in the file. */
export interface SourceEntry {
  location: string;
  raw: unknown;
  /** Set when the reader already knows the entry is unusable (e.g. a CSV row with a missing cell). */
  problem?: string;
}

/** A curated file: its file-level curation metadata and its events, not yet normalised. */
export interface CuratedDocument {
  meta: CurationMetadata;
  entries: SourceEntry[];
  /** CSV header cells that name no field (their cells are not read). */
  unreadColumns?: string[];
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The ForexFactory-style layout: such a file needs a sidecar, and curation cannot be guessed. */
function looksLikeProviderExport(events: unknown[]): boolean {
  const first = events.find(isObject);
  return first !== undefined && 'title' in first && 'impact' in first && !('eventName' in first) && !('name' in first);
}

/** `{license, attribution, verifiedAt, timeZone?, events: [...]}` or a bare array of events. */
function readCuratedValue(value: unknown): CuratedDocument {
  if (Array.isArray(value)) {
    if (looksLikeProviderExport(value)) {
      throw new SourceProblem(
        'curation metadata missing: this is a provider weekly export and needs a sidecar <file>.meta.yaml (format, license, attribution, verifiedAt)',
      );
    }
    return { meta: {}, entries: value.map((raw, index) => ({ location: `[${index}]`, raw })) };
  }
  if (isObject(value) && Array.isArray(value.events)) {
    const meta = readCurationMetadata(value);
    return { meta, entries: value.events.map((raw, index) => ({ location: `events[${index}]`, raw })) };
  }
  throw new SourceProblem('expected an object with an "events" list, or a list of events');
}

export function readCuratedJson(text: string): CuratedDocument {
  return readCuratedValue(parseJsonSource(text));
}

/** JSON through the one JSON reader (duplicate keys, out-of-range numbers, depth), as a SourceProblem. */
export function parseJsonSource(text: string): unknown {
  try {
    return parseJsonText(text);
  } catch (error) {
    if (!(error instanceof JsonTextError)) throw error;
    throw new SourceProblem(`not valid JSON: ${error.message}`, error.line === undefined ? undefined : `line ${error.line}`);
  }
}

/** YAML through the one YAML loader (core schema, unique keys, alias limit), as a SourceProblem. */
export function parseYamlText(text: string): unknown {
  try {
    return parseYaml(text);
  } catch (error) {
    if (!(error instanceof YamlTextError)) throw error;
    throw new SourceProblem(
      `not valid YAML: ${error.message.replace(/:$/, '')}`,
      error.line === undefined ? undefined : `line ${error.line}`,
    );
  }
}

export function readCuratedYaml(text: string): CuratedDocument {
  return readCuratedValue(parseYamlText(text));
}
