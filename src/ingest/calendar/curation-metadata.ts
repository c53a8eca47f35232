import { Attribution } from '../../model/rights.js';
import { parseIsoDate, parseZonedInstant, isTimeZone } from './scheduled-time.js';
import { SourceProblem, quote } from '../source-problem.js';
import { formatZodIssues } from '../../lib/zod-issues.js';

/**
 * What a curator vouches for: the license the event may be published under, whom to credit, and
 * when a person last checked it. Given per file (or in a sidecar) and/or per event.
 */
export interface CurationMetadata {
  license?: string;
  attribution?: Attribution;
  verifiedAt?: string;
  /** Default IANA zone for `date` + `time` events of a file. */
  timeZone?: string;
}

export type Curation = Required<Pick<CurationMetadata, 'license' | 'attribution' | 'verifiedAt'>>;

function optionalText(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new SourceProblem(`${field} must be text, got ${quote(value)}`);
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** verifiedAt: an instant with its zone, or a plain date (taken as 00:00 UTC of that day). */
function parseVerifiedAt(value: string): string {
  const instant = parseZonedInstant(value);
  if (instant) return instant;
  const date = parseIsoDate(value);
  if (date) return new Date(Date.UTC(date.year, date.month - 1, date.day)).toISOString();
  throw new SourceProblem(`verifiedAt ${quote(value)} is not an ISO 8601 date-time with a zone or a YYYY-MM-DD date`);
}

function parseAttribution(value: unknown): Attribution | undefined {
  if (value === undefined || value === null) return undefined;
  const parsed = Attribution.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new SourceProblem(`invalid attribution (${formatZodIssues(parsed.error, 'attribution')}); expected {source, url?, text}`);
}

/** Reads the curation fields of a file header, sidecar or event; unknown keys are left alone. */
export function readCurationMetadata(raw: Record<string, unknown>): CurationMetadata {
  const meta: CurationMetadata = {};
  const license = optionalText(raw.license, 'license');
  if (license) meta.license = license;
  const attribution = parseAttribution(raw.attribution);
  if (attribution) meta.attribution = attribution;
  const verifiedAt = optionalText(raw.verifiedAt, 'verifiedAt');
  if (verifiedAt) meta.verifiedAt = parseVerifiedAt(verifiedAt);
  const timeZone = optionalText(raw.timeZone, 'timeZone');
  if (timeZone) {
    if (!isTimeZone(timeZone))
      throw new SourceProblem(`unknown time zone ${quote(timeZone)} (expected an IANA name such as America/New_York)`);
    meta.timeZone = timeZone;
  }
  return meta;
}

/** Later layers win, field by field (an event's attribution replaces the file's as a whole). */
export function mergeCuration(...layers: CurationMetadata[]): CurationMetadata {
  const merged: CurationMetadata = {};
  for (const layer of layers) {
    if (layer.license !== undefined) merged.license = layer.license;
    if (layer.attribution !== undefined) merged.attribution = layer.attribution;
    if (layer.verifiedAt !== undefined) merged.verifiedAt = layer.verifiedAt;
    if (layer.timeZone !== undefined) merged.timeZone = layer.timeZone;
  }
  return merged;
}

/** Rights are never guessed: an event without all three after merging is rejected. */
export function requireCuration(meta: CurationMetadata): Curation {
  const missing = (['license', 'attribution', 'verifiedAt'] as const).filter((field) => meta[field] === undefined);
  if (missing.length > 0) {
    throw new SourceProblem(`missing ${missing.join(', ')} (give it per file, in a sidecar, or per event)`);
  }
  return { license: meta.license!, attribution: meta.attribution!, verifiedAt: meta.verifiedAt! };
}
