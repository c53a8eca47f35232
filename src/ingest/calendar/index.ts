import path from 'node:path';
import type { IngestResult, Sourced } from '../../model/dataset-build.js';
import type { BuildNote, Rejection, SourceFile } from '../../model/report.js';
import { listSourceFiles, loadSource, relativeSourcePath, UnreadableSource, type LoadedSource } from '../source-files.js';
import { decodeSourceText } from '../source-text.js';
import { fieldWithNul, nulProblem } from '../text-fields.js';
import { readCuratedCsv } from './curated-csv.js';
import { isObject, readCuratedJson, readCuratedYaml, type CuratedDocument } from './curated-document.js';
import { normaliseCuratedEvent, type IngestedEvent } from './curated-event.js';
import { withFieldNames } from './event-fields.js';
import { type CurationMetadata, mergeCuration, requireCuration } from './curation-metadata.js';
import { normaliseProviderRow, providerXmlZone } from './provider-event.js';
import { readProviderJson, readProviderXml } from './provider-export.js';
import { SIDECAR_PATTERN, readSidecar, sidecarCandidates, type Sidecar } from './sidecar.js';
import { SourceProblem } from '../source-problem.js';
import { compareText } from '../../lib/text-order.js';

export type { IngestedEvent } from './curated-event.js';

const SOURCE_EXTENSIONS = new Set(['json', 'yaml', 'yml', 'csv', 'xml']);

interface Outcome {
  events: Sourced<IngestedEvent>[];
  rejections: Rejection[];
  /** Columns or keys that name no field, not read: said in one note per file. */
  unread?: string[];
}

function extensionOf(file: string): string {
  return path.extname(file).slice(1).toLowerCase();
}

/** Runs one record's normaliser; a problem becomes that record's rejection and the file goes on. */
function collect<T>(source: string, rows: T[], locationOf: (row: T) => string, normalise: (row: T) => IngestedEvent): Outcome {
  const outcome: Outcome = { events: [], rejections: [] };
  for (const row of rows) {
    const location = locationOf(row);
    try {
      const record = normalise(row);
      const nul = fieldWithNul(record);
      if (nul !== undefined) throw new SourceProblem(nulProblem(nul));
      outcome.events.push({ record, source, location });
    } catch (error) {
      if (!(error instanceof SourceProblem)) throw error;
      outcome.rejections.push({ source, location, reason: error.message });
    }
  }
  return outcome;
}

/** A source file as text, decoded once (BOM, UTF-16, a declared XML encoding). */
interface SourceText {
  relativePath: string;
  text: string;
}

function readCuratedFile(file: SourceText, extension: string, sidecar: Sidecar | undefined): Outcome {
  if (extension === 'xml') {
    throw new SourceProblem(
      sidecar
        ? 'XML is read only as a provider weekly export: set format: provider-xml in its sidecar'
        : 'curation metadata missing: a provider XML export needs a sidecar <file>.meta.yaml (format, license, attribution, verifiedAt; timeZone if its times are not UTC)',
    );
  }
  const text = file.text;
  const document: CuratedDocument =
    extension === 'csv' ? readCuratedCsv(text) : extension === 'json' ? readCuratedJson(text) : readCuratedYaml(text);
  const fileMeta = mergeCuration(sidecar?.meta ?? {}, document.meta);
  const unread = new Set(document.unreadColumns ?? []);
  const outcome = collect(
    file.relativePath,
    document.entries,
    (entry) => entry.location,
    (entry) => {
      if (entry.problem) throw new SourceProblem(entry.problem);
      if (!isObject(entry.raw)) throw new SourceProblem('an event must be an object of fields');
      if (extension === 'csv') return normaliseCuratedEvent(withFileAttribution(entry.raw, fileMeta), fileMeta);
      const { event, unknown } = withFieldNames(entry.raw);
      for (const key of unknown) unread.add(key);
      return normaliseCuratedEvent(event, fileMeta);
    },
  );
  return { ...outcome, unread: [...unread] };
}

/**
 * A CSV row's attribution cells complete the file's attribution (its sidecar's) field by field: an
 * empty cell falls back to the sidecar, as a row filling only attributionUrl means to.
 */
function withFileAttribution(raw: Record<string, unknown>, fileMeta: CurationMetadata): Record<string, unknown> {
  if (!isObject(raw.attribution) || fileMeta.attribution === undefined) return raw;
  const written = Object.fromEntries(Object.entries(raw.attribution).filter(([, value]) => value !== undefined));
  return { ...raw, attribution: { ...fileMeta.attribution, ...written } };
}

function readProviderFile(file: SourceText, extension: string, sidecar: Sidecar): Outcome {
  const expected = sidecar.format === 'provider-json' ? 'json' : 'xml';
  if (extension !== expected) throw new SourceProblem(`the sidecar says ${sidecar.format} but the file is .${extension}`);
  try {
    requireCuration(sidecar.meta);
  } catch (error) {
    if (error instanceof SourceProblem) throw new SourceProblem(`curation metadata missing in the sidecar: ${error.message}`);
    throw error;
  }
  const text = file.text;
  const rows = sidecar.format === 'provider-json' ? readProviderJson(text) : readProviderXml(text);
  return collect(
    file.relativePath,
    rows,
    (row) => row.location,
    (row) => normaliseProviderRow(row, sidecar),
  );
}

/**
 * Reads `<sourcesRoot>/calendar/`: curated JSON, YAML and CSV files and provider weekly exports
 * (JSON or XML, each with a `<file>.meta.yaml` sidecar carrying the curation metadata). Files
 * named `*.meta.yaml|yml|json` are sidecars, never event sources. A missing folder gives nothing.
 */
export async function ingestCalendar(sourcesRoot: string): Promise<IngestResult<Sourced<IngestedEvent>>> {
  const listing = await listSourceFiles(sourcesRoot, path.join(sourcesRoot, 'calendar'));
  const files = listing.files;
  const sidecarFiles = new Set(files.filter((file) => SIDECAR_PATTERN.test(path.basename(file))));
  const usedSidecars = new Set<string>();
  const provenance = new Map<string, SourceFile>();
  const result: IngestResult<Sourced<IngestedEvent>> = { records: [], rejections: [], notes: [], sources: [] };
  const note = (source: string, message: string) => result.notes.push({ source, message } satisfies BuildNote);
  result.notes.push(...listing.notes);
  /** Reads and decodes one file; what makes it unreadable (too large, not a regular file, not text) is its problem. */
  const readText = async (file: string, extension: string): Promise<string | SourceProblem> => {
    let loaded: LoadedSource;
    try {
      loaded = await loadSource(sourcesRoot, file);
    } catch (error) {
      if (error instanceof UnreadableSource) return new SourceProblem(error.reason, error.location);
      throw error;
    }
    provenance.set(loaded.relativePath, loaded.provenance);
    const decoded = decodeSourceText(loaded.content, { xml: extension === 'xml' });
    if (!decoded.ok) return new SourceProblem(decoded.reason);
    if (decoded.warning) note(loaded.relativePath, decoded.warning);
    return decoded.text;
  };

  for (const file of files) {
    if (sidecarFiles.has(file)) continue;
    const extension = extensionOf(file);
    const relative = relativeSourcePath(sourcesRoot, file);
    if (!SOURCE_EXTENSIONS.has(extension)) {
      note(relative, 'ignored: not a calendar source (.json, .yaml, .yml, .csv or .xml)');
      continue;
    }
    const read = await readText(file, extension);
    if (read instanceof SourceProblem) {
      result.rejections.push({ source: relative, location: read.location ?? 'file', reason: read.message });
      continue;
    }
    const loaded: SourceText = { relativePath: relative, text: read };

    let sidecar: Sidecar | undefined;
    const sidecarPath = sidecarCandidates(file).find((candidate) => sidecarFiles.has(candidate));
    if (sidecarPath) {
      usedSidecars.add(sidecarPath);
      const sidecarRelative = relativeSourcePath(sourcesRoot, sidecarPath);
      try {
        const sidecarText = await readText(sidecarPath, extensionOf(sidecarPath));
        if (sidecarText instanceof SourceProblem) throw sidecarText;
        sidecar = readSidecar(sidecarText, sidecarPath);
      } catch (error) {
        if (!(error instanceof SourceProblem)) throw error;
        result.rejections.push({
          source: sidecarRelative,
          location: error.location ?? 'file',
          reason: `${error.message}; ${loaded.relativePath} was not ingested`,
        });
        continue;
      }
    }

    try {
      const outcome =
        sidecar && sidecar.format !== 'curated'
          ? readProviderFile(loaded, extension, sidecar)
          : readCuratedFile(loaded, extension, sidecar);
      result.records.push(...outcome.events);
      result.rejections.push(...outcome.rejections);
      if (outcome.unread && outcome.unread.length > 0) {
        note(
          loaded.relativePath,
          `not read, since no calendar field has these names: ${outcome.unread.map((name) => JSON.stringify(name)).join(', ')}`,
        );
      }
      if (sidecar?.format === 'provider-xml') {
        const zone = providerXmlZone(sidecar);
        note(
          loaded.relativePath,
          sidecar.meta.timeZone === undefined
            ? `provider XML dates and times read as ${zone} (the default for provider-xml; a sidecar timeZone overrides it)`
            : `provider XML dates and times read as ${zone} (the sidecar's timeZone, instead of the UTC default)`,
        );
      }
    } catch (error) {
      if (!(error instanceof SourceProblem)) throw error;
      result.rejections.push({ source: loaded.relativePath, location: error.location ?? 'file', reason: error.message });
    }
  }

  for (const sidecarPath of sidecarFiles) {
    if (!usedSidecars.has(sidecarPath)) {
      note(relativeSourcePath(sourcesRoot, sidecarPath), 'ignored: sidecar without a matching source file');
    }
  }
  result.sources = [...provenance.values()].sort((a, b) => compareText(a.path, b.path));
  return result;
}
