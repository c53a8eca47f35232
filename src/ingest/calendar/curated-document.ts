import { parse as parseYaml, YAMLParseError } from 'yaml';
import { readCurationMetadata, type CurationMetadata } from './curation-metadata.js';
import { SourceProblem } from './source-problem.js';

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
export function readCuratedValue(value: unknown): CuratedDocument {
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
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SourceProblem(`not valid JSON: ${(error as Error).message}`);
  }
  return readCuratedValue(value);
}

export function parseYamlText(text: string): unknown {
  try {
    return parseYaml(text);
  } catch (error) {
    if (error instanceof YAMLParseError) {
      const line = error.linePos?.[0]?.line;
      throw new SourceProblem(`not valid YAML: ${error.message.split('\n')[0]!.replace(/:$/, '')}`, line ? `line ${line}` : undefined);
    }
    throw error;
  }
}

export function readCuratedYaml(text: string): CuratedDocument {
  return readCuratedValue(parseYamlText(text));
}
