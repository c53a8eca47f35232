import path from 'node:path';
import type { FilingCatalog, InvestorRegistryEntry } from '../../model/filing.js';
import type { Progress, ProgressStep } from '../../model/progress.js';
import type { BuildNote, Rejection, SourceFile } from '../../model/report.js';
import { loadSource, sourceProvenance, UnreadableSource } from '../source-files.js';
import { decodeSourceText } from '../source-text.js';
import { CompactFilingCatalog } from './catalog.js';
import { ingestEdgarTree } from './edgar-submissions.js';
import { FilingIntake, type IntakeOptions } from './filing-intake.js';
import { type Form13fLocation, findForm13fDatasets } from './form13f-location.js';
import { type Form13fReading, Form13fWorkers, defaultIngestThreads } from './form13f-workers.js';
import { type DatasetSourceFile, datasetSourceFile, readForm13fDataset } from './read-form13f-dataset.js';
import { cachedIntake, cacheIntake, intakeKey } from './form13f-intake-cache.js';
import type { KeyedCache } from '../../lib/keyed-file-cache.js';
import type { IntakeTransfer } from './filing-intake.js';
import { parseInvestorRegistry } from './investor-registry.js';

export interface IngestFilingsOptions extends IntakeOptions {
  /**
   * Data sets read at once in worker threads; 0 reads them on this thread, one after the other.
   * The outcome is the same either way. Default: one per core, when the worker script exists.
   */
  threads?: number;
  /**
   * Where what a data set was read into is kept, under the digest of its files and of the code
   * (form13f-intake-cache.ts): a data set read before is taken from there instead of being read.
   */
  cache?: KeyedCache;
  /** Files hashed already (the derivation cache's key), by absolute path: hashed once per build. */
  provenance?: Map<string, Promise<SourceFile>>;
}

export interface FilingsIngest {
  catalog: FilingCatalog;
  /** null when filings/investors.yaml does not exist (every filer is then an investor). */
  registry: InvestorRegistryEntry[] | null;
  rejections: Rejection[];
  notes: BuildNote[];
  sources: SourceFile[];
  /** Accepted filings whose cover page totals disagree with their information table (each noted). */
  totalsDisagreements: number;
}

/**
 * Reads `<sourcesRoot>/filings/`: EDGAR submissions and filing folders under `edgar/`, Form 13F
 * data sets under `datasets/` (ZIPs or extracted folders), and the optional `investors.yaml`.
 * Sources are read in sorted order (EDGAR first, then data sets), so that which of two copies of
 * an accession is kept — the first — is the same on every build.
 */
export async function ingestFilings(
  sourcesRoot: string,
  progress: Progress,
  options: IngestFilingsOptions = { strictTotals: false },
): Promise<FilingsIngest & { catalog: CompactFilingCatalog }> {
  const catalog = new CompactFilingCatalog();
  const intake = new FilingIntake(catalog, options);
  const sources: SourceFile[] = [];

  const form13fDir = path.join(sourcesRoot, 'filings', 'datasets');
  const datasets = await findForm13fDatasets(sourcesRoot, form13fDir);
  // Each file is hashed once: for its provenance, and for the key of what it was read into.
  const provenance = options.provenance ?? new Map<string, Promise<SourceFile>>();
  const provenanceOf = (file: string) => {
    let known = provenance.get(file);
    if (known === undefined) {
      known = sourceProvenance(sourcesRoot, file);
      provenance.set(file, known);
    }
    return known;
  };
  const keyOf = async (dataset: Form13fLocation): Promise<string | null> => {
    try {
      return intakeKey(dataset, await Promise.all(dataset.files.map(provenanceOf)), options);
    } catch (error) {
      if (error instanceof UnreadableSource) return null; // read (and rejected) as usual
      throw error;
    }
  };
  const keys = options.cache ? await Promise.all(datasets.found.map(keyOf)) : datasets.found.map(() => null);
  // With a cache every file was hashed for the keys just now: nothing hashes it again as it is read.
  const hashedBefore = options.cache !== undefined;
  const read = (dataset: Form13fLocation, label: string) =>
    readForm13fDataset(sourcesRoot, dataset, intake, (total) => progress.step(label, total), !hashedBefore);
  const cached = await Promise.all(keys.map((key) => (options.cache && key !== null ? cachedIntake(options.cache, key) : null)));
  // The data sets are most of the work: read in worker threads from the start, beside EDGAR, those
  // that were not read before.
  const toRead = datasets.found.filter((_, index) => cached[index] === null);
  const threads = Math.min(options.threads ?? defaultIngestThreads(), toRead.length);
  const workers =
    threads > 0 ? new Form13fWorkers(sourcesRoot, toRead, { strictTotals: options.strictTotals }, threads, !hashedBefore) : null;
  const readings = new Map(toRead.map((dataset, index) => [dataset, workers?.readings[index]]));
  try {
    const edgarStep = progress.step('smart-money: read EDGAR filings');
    sources.push(...(await ingestEdgarTree(sourcesRoot, intake)));
    edgarStep.done(`${catalog.filingCount} filings`);

    intake.notes.push(...datasets.notes);
    for (const [index, dataset] of datasets.found.entries()) {
      const before = catalog.filingCount;
      const label = `smart-money: read ${dataset.source} INFOTABLE (bytes)`;
      const reading = readings.get(dataset);
      const known = cached[index];
      const taken = known
        ? await takeFromCache(known, dataset, label)
        : reading
          ? await takeFromWorker(reading, dataset, label, keys[index] ?? null)
          : await read(dataset, label);
      const files = hashedBefore ? await Promise.all(dataset.files.map((file) => datasetSourceFile(provenanceOf(file)))) : taken.sources;
      for (const file of files) {
        if ('file' in file) sources.push(file.file);
        else intake.reject(file.unreadable.source, file.unreadable.location, file.unreadable.reason);
      }
      taken.step.done(`${catalog.filingCount - before} filings`);
    }
  } finally {
    await workers?.close();
  }

  /**
   * The worker's outcome, taken in as if read here; or, when it looked for an accession that a
   * source read before it has committed (a copy of one filing in two sources), the data set read
   * again here, since only then are its duplicates found as they are in order.
   */
  async function takeFromWorker(
    reading: Form13fReading,
    dataset: Form13fLocation,
    label: string,
    key: string | null,
  ): Promise<{ step: ProgressStep; sources: DatasetSourceFile[] }> {
    const step = progress.step(label, await reading.opened);
    reading.follow(step);
    const { transfer, sources: files } = await reading.result;
    // Kept before absorb() takes the columns over: what a next build of the same files starts from.
    if (options.cache && key !== null) await cacheIntake(options.cache, key, transfer);
    if (!intake.conflictsWith(transfer)) {
      intake.absorb(transfer);
      return { step, sources: files };
    }
    step.done('read again after the sources before it');
    return read(dataset, label);
  }

  /** A data set read by an earlier build, taken in as takeFromWorker takes a worker's outcome. */
  async function takeFromCache(
    transfer: IntakeTransfer,
    dataset: Form13fLocation,
    label: string,
  ): Promise<{ step: ProgressStep; sources: DatasetSourceFile[] }> {
    const step = progress.step(`${label} (read before)`);
    if (!intake.conflictsWith(transfer)) {
      intake.absorb(transfer);
      intake.notes.push({
        source: dataset.source,
        message: 'read by an earlier build: taken from the derivation cache',
        routine: 'data set(s) taken from the derivation cache, not read again',
      });
      // Its files' provenance: hashed already, for the key that found it.
      return { step, sources: [] };
    }
    step.done('read again after the sources before it');
    return read(dataset, label);
  }

  // The registry decides who is published: unreadable (too large, not a regular file, not text,
  // not YAML), it fails the dataset naming it (UnreadableSource), rather than publishing everyone or nobody.
  const registryPath = path.join(sourcesRoot, 'filings', 'investors.yaml');
  let registry: InvestorRegistryEntry[] | null = null;
  const registryFile = await loadSource(sourcesRoot, registryPath).catch((error: Error) => {
    if (error instanceof UnreadableSource && /\(ENOENT\)/.test(error.reason)) return null;
    throw error;
  });
  if (registryFile) {
    const decoded = decodeSourceText(registryFile.content);
    if (!decoded.ok) throw new UnreadableSource(registryFile.relativePath, decoded.reason);
    if (decoded.warning) intake.notes.push({ source: registryFile.relativePath, message: decoded.warning });
    const parsed = parseInvestorRegistry(decoded.text, registryFile.relativePath);
    registry = parsed.entries;
    intake.rejections.push(...parsed.rejections);
    intake.notes.push(...parsed.notes);
    sources.push(registryFile.provenance);
  }

  intake.finish();
  return {
    catalog,
    registry,
    rejections: intake.rejections,
    notes: intake.notes,
    sources,
    totalsDisagreements: intake.totalsDisagreements,
  };
}
