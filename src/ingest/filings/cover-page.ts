import type { AmendmentType, SubmissionType } from '../../model/filing.js';
import { SourceProblem } from '../source-problem.js';
import { readAmendmentType, readNonNegativeNumber, readSubmissionType, normalizeCik } from './filing-fields.js';
import { readCoverPageDate } from './filing-dates.js';
import { nameText, parseXmlDocument, rootName, text, type XmlNode } from './xml-document.js';

/** What ingest needs from a 13F cover page (`primary_doc.xml`, namespace http://www.sec.gov/edgar/thirteenffiler). */
export interface CoverPage {
  submissionType: SubmissionType;
  cik: string;
  /** Quarter end, YYYY-MM-DD (headerData/filerInfo/periodOfReport, else coverPage/reportCalendarOrQuarter). */
  period: string;
  amendmentType: AmendmentType | null;
  filingManagerName: string;
  reportType: string | null;
  tableEntryTotal: number | null;
  tableValueTotal: number | null;
  /** YYYY-MM-DD; the only date a primary_doc.xml carries, used as the filing date of folder filings. */
  signatureDate: string | null;
}

export function parseCoverPage(xml: string): CoverPage {
  return readCoverPage(parseXmlDocument(xml));
}

function isCoverPage(document: XmlNode): boolean {
  return rootName(document) === 'edgarSubmission';
}

export function readCoverPage(document: XmlNode): CoverPage {
  if (!isCoverPage(document)) {
    throw new SourceProblem(`expected an <edgarSubmission> cover page, found <${rootName(document) ?? 'nothing'}>`);
  }
  const root = document.edgarSubmission;
  const at = <T>(location: string, read: () => T): T => {
    try {
      return read();
    } catch (error) {
      if (error instanceof SourceProblem) throw new SourceProblem(error.message, location);
      throw error;
    }
  };
  const submissionType = at('edgarSubmission/headerData/submissionType', () =>
    readSubmissionType(text(root, 'headerData', 'submissionType'), 'submissionType'),
  );
  const cik = at('headerData/filerInfo/filer/credentials/cik', () =>
    normalizeCik(text(root, 'headerData', 'filerInfo', 'filer', 'credentials', 'cik')),
  );
  const periodText =
    text(root, 'headerData', 'filerInfo', 'periodOfReport') ?? text(root, 'formData', 'coverPage', 'reportCalendarOrQuarter');
  const period = at('headerData/filerInfo/periodOfReport', () => readCoverPageDate(periodText, 'periodOfReport'));
  const isAmendment = (text(root, 'formData', 'coverPage', 'isAmendment') ?? '').trim().toLowerCase();
  const amendmentType = at('formData/coverPage/amendmentInfo/amendmentType', () =>
    readAmendmentType(text(root, 'formData', 'coverPage', 'amendmentInfo', 'amendmentType')),
  );
  if (submissionType === '13F-HR/A' && amendmentType === null) {
    throw new SourceProblem(
      '13F-HR/A without an amendmentType (RESTATEMENT or NEW HOLDINGS)',
      'formData/coverPage/amendmentInfo/amendmentType',
    );
  }
  const amended = submissionType.endsWith('/A') || isAmendment === 'true' || isAmendment === 'y';
  const filingManagerName = (nameText(root, 'formData', 'coverPage', 'filingManager', 'name') ?? '').trim();
  if (filingManagerName === '') throw new SourceProblem('filingManager/name is missing', 'formData/coverPage/filingManager/name');
  const optionalNumber = (name: string): number | null => {
    const value = text(root, 'formData', 'summaryPage', name);
    if (value === undefined || value.trim() === '') return null;
    return at(`formData/summaryPage/${name}`, () => readNonNegativeNumber(value, name));
  };
  const signature = text(root, 'formData', 'signatureBlock', 'signatureDate');
  return {
    submissionType,
    cik,
    period,
    amendmentType: amended ? amendmentType : null,
    filingManagerName,
    reportType: (text(root, 'formData', 'coverPage', 'reportType') ?? '').trim() || null,
    tableEntryTotal: optionalNumber('tableEntryTotal'),
    tableValueTotal: optionalNumber('tableValueTotal'),
    signatureDate:
      signature === undefined || signature.trim() === ''
        ? null
        : at('formData/signatureBlock/signatureDate', () => readCoverPageDate(signature, 'signatureDate')),
  };
}
