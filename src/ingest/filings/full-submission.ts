import { LineCounter } from '../line-index.js';
import { SourceProblem } from '../source-problem.js';
import { readSubmissionHeader, type SubmissionHeader } from './submission-header.js';

/**
 * Splits an EDGAR full submission (`<accession>.txt`, or the `.nc` dissemination file) into its
 * SGML header fields and its documents. The header is `KEY:<tabs>value` lines (`.txt`) or tagged
 * lines (`.nc`), read by submission-header.ts; each document is a `<DOCUMENT>` block with `<TYPE>`,
 * `<FILENAME>` and a `<TEXT>` whose `<XML>` element holds the cover page (primary_doc.xml) or the
 * information table.
 *
 * Lines may end in LF, CRLF or a bare CR. The text is scanned once, front to back (documents
 * found with indexOf, line numbers counted incrementally), so the cost is linear in its size
 * whatever the number of documents.
 */
export interface FullSubmission {
  header: SubmissionHeader;
  documents: SubmissionDocument[];
}

export interface SubmissionDocument {
  type: string;
  fileName: string;
  /** Contents of <XML>...</XML>, or null for a plain-text document. */
  xml: string | null;
  /** 1-based line of the <DOCUMENT> tag, for reports. */
  line: number;
  /** 1-based line of the file on which `xml` starts (its first line is the rest of the <XML> line). */
  xmlLine: number;
}

const DOCUMENT_OPEN = '<DOCUMENT>';
const DOCUMENT_CLOSE = '</DOCUMENT>';

export function parseFullSubmission(text: string): FullSubmission {
  const headerEnd = text.search(/<\/SEC-HEADER>|<\/IMS-HEADER>|<DOCUMENT>/);
  if (headerEnd < 0) throw new SourceProblem('not an EDGAR full submission: no SGML header or <DOCUMENT> block', 'line 1');
  const lines = new LineCounter(text);
  const headerText = text.slice(0, headerEnd);
  const nul = headerText.indexOf('\u0000');
  if (nul !== -1) throw new SourceProblem('the SGML header contains a NUL character (U+0000)', `line ${lines.lineAt(nul)}`);
  const header = readSubmissionHeader(headerText);

  const documents: SubmissionDocument[] = [];
  for (let open = text.indexOf(DOCUMENT_OPEN); open !== -1; open = text.indexOf(DOCUMENT_OPEN, open + DOCUMENT_OPEN.length)) {
    const line = lines.lineAt(open);
    const bodyStart = open + DOCUMENT_OPEN.length;
    const close = text.indexOf(DOCUMENT_CLOSE, bodyStart);
    if (close === -1) throw new SourceProblem(`the <DOCUMENT> of line ${line} is never closed by ${DOCUMENT_CLOSE}`, `line ${line}`);
    const body = text.slice(bodyStart, close);
    const xml = xmlElement(body, bodyStart, lines);
    documents.push({
      type: (/<TYPE>([^\r\n<]*)/.exec(body)?.[1] ?? '').trim(),
      fileName: (/<FILENAME>([^\r\n<]*)/.exec(body)?.[1] ?? '').trim(),
      xml: xml?.text ?? null,
      line,
      xmlLine: xml?.line ?? line,
    });
    open = close;
  }
  return { header, documents };
}

/**
 * The `<XML>...</XML>` element of one document body, or null when it has none. A misplaced tag
 * (a `</XML>` with no `<XML>` before it, an `<XML>` never closed within its document, or an
 * element closed before any XML) is named with its line in the file.
 */
function xmlElement(body: string, bodyOffset: number, lines: LineCounter): { text: string; line: number } | null {
  const openAt = body.search(/<XML>/i);
  const closeAt = body.search(/<\/XML>/i);
  if (openAt === -1 && closeAt === -1) return null;
  if (openAt === -1 || closeAt < openAt) {
    const closeLine = lines.lineAt(bodyOffset + closeAt);
    throw new SourceProblem(`a misplaced </XML>: the one on line ${closeLine} closes no <XML> element`, `line ${closeLine}`);
  }
  const openLine = lines.lineAt(bodyOffset + openAt);
  if (closeAt === -1) {
    throw new SourceProblem(`a misplaced </XML>: the <XML> of line ${openLine} is not closed within its DOCUMENT`, `line ${openLine}`);
  }
  const text = body.slice(openAt + '<XML>'.length, closeAt);
  if (text.trim() === '') {
    const closeLine = lines.lineAt(bodyOffset + closeAt);
    throw new SourceProblem(
      `a misplaced </XML>: the <XML> of line ${openLine} is closed on line ${closeLine} before any XML`,
      `line ${closeLine}`,
    );
  }
  return { text, line: openLine };
}
