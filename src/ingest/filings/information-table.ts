import { SourceProblem } from '../source-problem.js';
import { readAmountType, readNonNegativeNumber, readPutCall } from './filing-fields.js';
import type { RawHoldingRow } from './raw-holding-row.js';
import { child, nameText, parseXmlDocument, rootName, text, type XmlNode, type XmlValue } from './xml-document.js';

/**
 * Reads a Form 13F information table (namespace
 * http://www.sec.gov/edgar/document/thirteenf/informationtable): one <infoTable> per row.
 * A bad row rejects the whole filing (nothing from a bad filing is half-used), so the first
 * problem is thrown with the row's element path.
 */
export function parseInformationTable(xml: string): RawHoldingRow[] {
  return readInformationTable(parseXmlDocument(xml));
}

export function isInformationTable(document: XmlNode): boolean {
  return rootName(document) === 'informationTable';
}

export function readInformationTable(document: XmlNode): RawHoldingRow[] {
  if (!isInformationTable(document)) {
    throw new SourceProblem(`expected an <informationTable> document, found <${rootName(document) ?? 'nothing'}>`);
  }
  const entries = child(document, 'informationTable', 'infoTable');
  const list: XmlValue[] = entries === undefined ? [] : Array.isArray(entries) ? entries : [entries];
  return list.map((entry, index) => {
    try {
      return readInfoTableEntry(entry);
    } catch (error) {
      if (error instanceof SourceProblem) {
        throw new SourceProblem(error.message, `informationTable/infoTable[${index + 1}]`);
      }
      throw error;
    }
  });
}

function readInfoTableEntry(entry: XmlValue): RawHoldingRow {
  const required = (name: string, value: string | undefined): string => {
    const trimmed = (value ?? '').trim();
    if (trimmed === '') throw new SourceProblem(`${name} is missing`);
    return trimmed;
  };
  return {
    issuerName: required('nameOfIssuer', nameText(entry, 'nameOfIssuer')),
    titleOfClass: (nameText(entry, 'titleOfClass') ?? '').trim(),
    cusip: required('cusip', text(entry, 'cusip')).toUpperCase(),
    putCall: readPutCall(text(entry, 'putCall')),
    amountType: readAmountType(text(entry, 'shrsOrPrnAmt', 'sshPrnamtType')),
    amount: readNonNegativeNumber(text(entry, 'shrsOrPrnAmt', 'sshPrnamt'), 'sshPrnamt'),
    reportedValue: readNonNegativeNumber(text(entry, 'value'), 'value'),
  };
}
