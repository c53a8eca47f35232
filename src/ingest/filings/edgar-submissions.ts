import path from 'node:path';
import type { SourceFile } from '../../model/report.js';
import { sha256Hex } from '../../lib/file-digest.js';
import { listSourceFiles, loadSource, relativeSourcePath, UnreadableSource, type LoadedSource } from '../source-files.js';
import { MAX_FILING_FILE_BYTES } from '../source-limits.js';
import { decodeSourceText } from '../source-text.js';
import { readCoverPage, type CoverPage } from './cover-page.js';
import { normalizeAccession, normalizeCik, readSubmissionType } from './filing-fields.js';
import { readHeaderDate } from './filing-dates.js';
import type { FilingFacts, FilingIntake } from './filing-intake.js';
import { SourceProblem } from '../source-problem.js';
import { parseFullSubmission } from './full-submission.js';
import type { HeaderField } from './submission-header.js';
import { isInformationTable, readInformationTable } from './information-table.js';
import type { RawHoldingRow } from './raw-holding-row.js';
import { parseXmlDocument, rootName } from './xml-document.js';

/**
 * Reads `filings/edgar/`: EDGAR full submissions (`*.txt`, `*.nc`) anywhere in the tree, and
 * filing folders, i.e. folders holding a `primary_doc.xml` (the cover page) next to an
 * information-table XML of any name — the layout of https://www.sec.gov/Archives/edgar/data/<cik>/<accession>/.
 * Other files inside a filing folder (index pages, the .txt copy, the HTML renderings in its
 * `xsl…` folder) are companions and not read.
 */
export async function ingestEdgarTree(sourcesRoot: string, intake: FilingIntake): Promise<SourceFile[]> {
  const edgarDir = path.join(sourcesRoot, 'filings', 'edgar');
  const listing = await listSourceFiles(sourcesRoot, edgarDir);
  intake.notes.push(...listing.notes);
  const withCoverPage = new Set(
    listing.files.filter((file) => path.basename(file).toLowerCase() === 'primary_doc.xml').map((file) => path.dirname(file)),
  );
  const files = listing.files.filter((file) => !isRenderedCopy(path.dirname(file), withCoverPage));
  const filingFolders = new Set([...withCoverPage].filter((folder) => !isRenderedCopy(folder, withCoverPage)));
  const sources: SourceFile[] = [];
  const handledFolders = new Set<string>();
  for (const file of files) {
    const folder = path.dirname(file);
    if (filingFolders.has(folder)) {
      if (!handledFolders.has(folder)) {
        handledFolders.add(folder);
        sources.push(...(await ingestFilingFolder(sourcesRoot, folder, files, intake)));
      }
      continue;
    }
    const extension = path.extname(file).toLowerCase();
    if (extension === '.txt' || extension === '.nc') {
      sources.push(...(await ingestFullSubmission(sourcesRoot, file, intake)));
    } else {
      intake.reject(
        relativeSourcePath(sourcesRoot, file),
        'file',
        'not a filing source: expected an EDGAR full submission (*.txt, *.nc) or a folder holding primary_doc.xml',
      );
    }
  }
  return sources;
}

/**
 * EDGAR's archive keeps an HTML rendering of a filing's XML documents, under their own names, in a
 * folder such as `xslForm13F_X02/` inside the filing folder: a companion, never a filing.
 */
function isRenderedCopy(folder: string, filingFolders: ReadonlySet<string>): boolean {
  return /^xsl/i.test(path.basename(folder)) && filingFolders.has(path.dirname(folder));
}

/**
 * Reads a filing file whole (up to MAX_FILING_FILE_BYTES) and decodes it. A file that cannot be
 * read, or is not text, is a SourceProblem of that file; invalid UTF-8 is a note.
 */
async function loadFilingText(sourcesRoot: string, file: string, intake: FilingIntake): Promise<{ loaded: LoadedSource; text: string }> {
  let loaded: LoadedSource;
  try {
    loaded = await loadSource(sourcesRoot, file, MAX_FILING_FILE_BYTES);
  } catch (error) {
    if (error instanceof UnreadableSource) throw new SourceProblem(error.reason, error.location);
    throw error;
  }
  const extension = path.extname(file).toLowerCase();
  const decoded = decodeSourceText(loaded.content, { xml: extension === '.xml', embeddedXml: extension === '.txt' || extension === '.nc' });
  if (!decoded.ok) throw new SourceProblem(decoded.reason, 'file');
  if (decoded.warning) intake.notes.push({ source: loaded.relativePath, message: decoded.warning });
  return { loaded, text: decoded.text };
}

async function ingestFullSubmission(sourcesRoot: string, file: string, intake: FilingIntake): Promise<SourceFile[]> {
  const source = relativeSourcePath(sourcesRoot, file);
  let provenance: SourceFile[] = [];
  try {
    const { loaded, text } = await loadFilingText(sourcesRoot, file, intake);
    provenance = [loaded.provenance];
    const submission = parseFullSubmission(text);
    const { header } = submission;
    // Reports name the header and its fields as the file spells them: SEC-HEADER/ACCESSION NUMBER, SUBMISSION/<ACCESSION-NUMBER>.
    const atHeader = <T>(read: () => T): T => relocate(header.element, read);
    const field = (name: HeaderField): string => {
      const value = header.values[name];
      if (value === undefined) throw new SourceProblem(`SGML header has no ${header.names[name]}`);
      return value;
    };
    const accession = atHeader(() => {
      const text = field('accession');
      const normalized = normalizeAccession(text);
      if (!normalized) throw new SourceProblem(`${header.names.accession} ${JSON.stringify(text)} is not an accession number`);
      return normalized;
    });
    const submissionType = atHeader(() => readSubmissionType(field('submissionType'), header.names.submissionType));
    let cover: CoverPage | null = null;
    let table: RawHoldingRow[] | null = null;
    for (const document of submission.documents) {
      if (document.xml === null) continue;
      const name = `DOCUMENT ${document.fileName || document.type}`;
      const location = `${name} (line ${document.line})`;
      // Lines of XML problems are lines of the .txt file.
      const parsed = relocate(name, () => parseXmlDocument(document.xml!, document.xmlLine), ', ');
      if (rootName(parsed) === 'edgarSubmission' && !cover) cover = relocate(location, () => readCoverPage(parsed));
      else if (isInformationTable(parsed) && !table) table = relocate(location, () => readInformationTable(parsed));
    }
    if (!cover) throw new SourceProblem('no XML cover page (primary_doc.xml) among the DOCUMENT blocks', 'DOCUMENT');
    const isNotice = submissionType.startsWith('13F-NT');
    if (!isNotice && !table) throw new SourceProblem('no XML information table among the DOCUMENT blocks', 'DOCUMENT');
    const facts: FilingFacts = {
      accessionNumber: accession,
      cik: atHeader(() => normalizeCik(field('cik'))),
      filerName: cover.filingManagerName || atHeader(() => field('filerName')),
      period: atHeader(() => readHeaderDate(field('period'), header.names.period)),
      filedAt: atHeader(() => readHeaderDate(field('filedAt'), header.names.filedAt)),
      submissionType,
      // As in a filing folder: the cover page's type, kept for a 13F-HR/A or a 13F-HR it marks isAmendment.
      amendmentType: cover.amendmentType,
      source,
    };
    if (submissionType === '13F-HR/A' && facts.amendmentType === null) {
      throw new SourceProblem('13F-HR/A without an amendmentType (RESTATEMENT or NEW HOLDINGS)', 'coverPage/amendmentInfo');
    }
    // A notice's table, if it has one, goes in too: the intake rejects a notice that lists rows.
    intake.accept(facts, table ?? [], cover, {
      accession: { source, location: `${header.element}/${header.names.accession}` },
      totals: { source, location: 'summaryPage' },
    });
  } catch (error) {
    if (!(error instanceof SourceProblem)) throw error;
    intake.reject(source, error.location ?? 'file', error.message);
  }
  return provenance;
}

async function ingestFilingFolder(sourcesRoot: string, folder: string, allFiles: string[], intake: FilingIntake): Promise<SourceFile[]> {
  const members = allFiles.filter((file) => path.dirname(file) === folder);
  const primary = members.find((file) => path.basename(file).toLowerCase() === 'primary_doc.xml')!;
  const xmlMembers = members.filter((file) => file !== primary && path.extname(file).toLowerCase() === '.xml');
  const folderSource = relativeSourcePath(sourcesRoot, folder);
  const sources: SourceFile[] = [];
  let currentSource = relativeSourcePath(sourcesRoot, primary);
  try {
    const { loaded: loadedPrimary, text: primaryText } = await loadFilingText(sourcesRoot, primary, intake);
    sources.push(loadedPrimary.provenance);
    const loadedOthers: (LoadedSource & { text: string })[] = [];
    for (const file of xmlMembers) {
      currentSource = relativeSourcePath(sourcesRoot, file);
      const { loaded, text } = await loadFilingText(sourcesRoot, file, intake);
      sources.push(loaded.provenance);
      loadedOthers.push({ ...loaded, text });
    }
    currentSource = loadedPrimary.relativePath;
    const cover = readCoverPage(parseXmlDocument(primaryText));
    const accession =
      normalizeAccession(path.basename(folder)) ??
      // No accession in the folder name: a stable stand-in from the content, so rebuilds agree.
      `derived-${sha256Hex(Buffer.concat([loadedPrimary.content, ...loadedOthers.map((loaded) => loaded.content)])).slice(0, 20)}`;
    if (accession.startsWith('derived-')) {
      intake.notes.push({
        source: folderSource,
        message: `folder name is not an accession number (0001234567-26-000123); using ${accession}`,
      });
    }
    if (!cover.signatureDate) {
      throw new SourceProblem(
        'no signatureBlock/signatureDate, the filing date of a folder filing',
        'formData/signatureBlock/signatureDate',
      );
    }
    const isNotice = cover.submissionType.startsWith('13F-NT');
    const tables: { source: string; rows: () => RawHoldingRow[] }[] = [];
    for (const loaded of loadedOthers) {
      currentSource = loaded.relativePath;
      const parsed = parseXmlDocument(loaded.text);
      if (isInformationTable(parsed)) tables.push({ source: loaded.relativePath, rows: () => readInformationTable(parsed) });
    }
    currentSource = loadedPrimary.relativePath;
    if (tables.length > 1 || (tables.length === 0 && !isNotice)) {
      throw new SourceProblem(
        tables.length === 0
          ? 'no information-table XML (<informationTable>) next to primary_doc.xml'
          : `more than one information-table XML: ${tables.map((table) => table.source).join(', ')}`,
        'folder',
      );
    }
    // A notice's table, if it has one, is read too: the intake rejects a notice that lists rows.
    let rows: RawHoldingRow[] = [];
    if (tables.length === 1) {
      currentSource = tables[0]!.source;
      rows = tables[0]!.rows();
      currentSource = loadedPrimary.relativePath;
    }
    const facts: FilingFacts = {
      accessionNumber: accession,
      cik: cover.cik,
      filerName: cover.filingManagerName,
      period: cover.period,
      filedAt: cover.signatureDate,
      submissionType: cover.submissionType,
      amendmentType: cover.amendmentType,
      source: folderSource,
    };
    intake.accept(facts, rows, cover, {
      accession: { source: folderSource, location: 'folder' },
      totals: { source: folderSource, location: 'primary_doc.xml formData/summaryPage' },
    });
  } catch (error) {
    if (!(error instanceof SourceProblem)) throw error;
    intake.reject(currentSource, error.location ?? 'file', error.message);
  }
  return sources;
}

/** Prefixes a problem's location with the document it was found in. */
function relocate<T>(location: string, read: () => T, separator = ' '): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof SourceProblem) {
      throw new SourceProblem(error.message, error.location ? `${location}${separator}${error.location}` : location);
    }
    throw error;
  }
}
