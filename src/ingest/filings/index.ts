import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FilingCatalog, InvestorRegistryEntry } from '../../model/filing.js';
import type { Progress } from '../../model/progress.js';
import type { BuildNote, Rejection, SourceFile } from '../../model/report.js';
import { fileProvenance, listFiles, relativeSourcePath, sha256Hex } from '../source-files.js';
import { CompactFilingCatalog } from './catalog.js';
import { folderMembers, zipMembers, type DatasetMembers } from './dataset-members.js';
import { ingestEdgarTree } from './edgar-submissions.js';
import { FilingIntake, type IntakeOptions } from './filing-intake.js';
import { ingestForm13fDataset } from './form13f-dataset.js';
import { parseInvestorRegistry } from './investor-registry.js';

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
  for (const dataset of await findDatasets(sourcesRoot, datasetsDir)) {
    const step = progress.step(`smart-money: stream data set ${dataset.source} (rows)`);
    const before = catalog.filingCount;
    const members = await dataset.open().catch((error: Error) => {
      intake.reject(dataset.source, 'file', `data set not read: ${error.message}`);
      return null;
    });
    if (members) {
      try {
        await ingestForm13fDataset(dataset.source, members, intake, step);
      } finally {
        members.close();
      }
    }
    sources.push(...(await Promise.all(dataset.files.map((file) => fileProvenance(sourcesRoot, file)))));
    step.done(`${catalog.filingCount - before} filings`);
  }

  const registryPath = path.join(sourcesRoot, 'filings', 'investors.yaml');
  let registry: InvestorRegistryEntry[] | null = null;
  const registryText = await readFile(registryPath).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (registryText) {
    const source = relativeSourcePath(sourcesRoot, registryPath);
    const parsed = parseInvestorRegistry(registryText.toString('utf8'), source);
    registry = parsed.entries;
    intake.rejections.push(...parsed.rejections);
    intake.notes.push(...parsed.notes);
    sources.push({ path: source, bytes: registryText.length, sha256: sha256Hex(registryText) });
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
  open(): Promise<DatasetMembers>;
}

/** Each `*.zip` is one data set; each folder holding `.tsv` files is one extracted data set. */
async function findDatasets(sourcesRoot: string, datasetsDir: string): Promise<DatasetLocation[]> {
  const files = await listFiles(datasetsDir);
  const relative = (file: string) => relativeSourcePath(sourcesRoot, file);
  const found: DatasetLocation[] = [];
  const folders = new Map<string, string[]>();
  for (const file of files) {
    const extension = path.extname(file).toLowerCase();
    if (extension === '.zip') {
      found.push({ source: relative(file), files: [file], open: () => zipMembers(file, relative(file)) });
    } else if (extension === '.tsv') {
      const folder = path.dirname(file);
      folders.set(folder, [...(folders.get(folder) ?? []), file]);
    }
  }
  for (const [folder, tsvFiles] of folders) {
    const used = tsvFiles.filter((file) =>
      ['SUBMISSION.TSV', 'COVERPAGE.TSV', 'SUMMARYPAGE.TSV', 'INFOTABLE.TSV'].includes(path.basename(file).toUpperCase()),
    );
    found.push({ source: relative(folder), files: used, open: async () => folderMembers(folder, used, relative) });
  }
  return found.sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
}
