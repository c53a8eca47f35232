import path from 'node:path';
import type { FilingCatalog, InvestorRegistryEntry } from '../../model/filing.js';
import type { Progress } from '../../model/progress.js';
import type { BuildNote, Rejection, SourceFile } from '../../model/report.js';
import {
  listSourceFiles,
  loadSource,
  openSourceDescriptor,
  openSourceStream,
  relativeSourcePath,
  sourceProvenance,
  UnreadableSource,
} from '../source-files.js';
import { decodeSourceText } from '../source-text.js';
import { CompactFilingCatalog } from './catalog.js';
import { folderMembers, zipMembers, type DatasetMembers } from './dataset-members.js';
import { ingestEdgarTree } from './edgar-submissions.js';
import { FilingIntake, type IntakeOptions } from './filing-intake.js';
import { ingestForm13fDataset } from './form13f-dataset.js';
import { parseInvestorRegistry } from './investor-registry.js';
import { compareText } from '../../lib/text-order.js';

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
  options: IntakeOptions = { strictTotals: false },
): Promise<FilingsIngest & { catalog: CompactFilingCatalog }> {
  const catalog = new CompactFilingCatalog();
  const intake = new FilingIntake(catalog, options);
  const sources: SourceFile[] = [];

  const edgarStep = progress.step('smart-money: read EDGAR filings');
  sources.push(...(await ingestEdgarTree(sourcesRoot, intake)));
  edgarStep.done(`${catalog.filingCount} filings`);

  const datasetsDir = path.join(sourcesRoot, 'filings', 'datasets');
  const datasets = await findDatasets(sourcesRoot, datasetsDir);
  intake.notes.push(...datasets.notes);
  for (const dataset of datasets.found) {
    const before = catalog.filingCount;
    const members = await dataset.open(intake.notes).catch((error: Error) => {
      intake.reject(dataset.source, 'file', `data set not read: ${error.message}`);
      return null;
    });
    // Progress in bytes of INFOTABLE scanned, out of its inflated size: the rows are the time.
    const total = members?.has('INFOTABLE.tsv') ? (members.size('INFOTABLE.tsv') ?? undefined) : undefined;
    const step = progress.step(`smart-money: read ${dataset.source} INFOTABLE (bytes)`, total);
    if (members) {
      try {
        await ingestForm13fDataset(dataset.source, members, intake, step);
      } finally {
        members.close();
      }
    }
    for (const file of dataset.files) {
      try {
        sources.push(await sourceProvenance(sourcesRoot, file));
      } catch (error) {
        if (!(error instanceof UnreadableSource)) throw error;
        intake.reject(error.source, error.location, error.reason);
      }
    }
    step.done(`${catalog.filingCount - before} filings`);
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

interface DatasetLocation {
  source: string;
  files: string[];
  open(notes: BuildNote[]): Promise<DatasetMembers>;
}

/** Each `*.zip` is one data set; each folder holding `.tsv` files is one extracted data set. */
async function findDatasets(sourcesRoot: string, datasetsDir: string): Promise<{ found: DatasetLocation[]; notes: BuildNote[] }> {
  const listing = await listSourceFiles(sourcesRoot, datasetsDir);
  const files = listing.files;
  const relative = (file: string) => relativeSourcePath(sourcesRoot, file);
  const found: DatasetLocation[] = [];
  const folders = new Map<string, string[]>();
  for (const file of files) {
    const extension = path.extname(file).toLowerCase();
    if (extension === '.zip') {
      found.push({
        source: relative(file),
        files: [file],
        open: async (notes) => zipMembers(await openSourceDescriptor(sourcesRoot, file), relative(file), notes),
      });
    } else if (extension === '.tsv') {
      const folder = path.dirname(file);
      folders.set(folder, [...(folders.get(folder) ?? []), file]);
    }
  }
  for (const [folder, tsvFiles] of folders) {
    const used = tsvFiles.filter((file) =>
      ['SUBMISSION.TSV', 'COVERPAGE.TSV', 'SUMMARYPAGE.TSV', 'INFOTABLE.TSV'].includes(path.basename(file).toUpperCase()),
    );
    found.push({
      source: relative(folder),
      files: used,
      open: async () => folderMembers(folder, used, relative, (file) => openSourceStream(sourcesRoot, file)),
    });
  }
  return { found: found.sort((a, b) => compareText(a.source, b.source)), notes: listing.notes };
}
