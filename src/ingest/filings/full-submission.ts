import { FilingProblem } from './filing-problem.js';

/**
 * Splits an EDGAR full submission (`<accession>.txt`, or the `.nc` dissemination file) into its
 * SGML header fields and its documents. The header is `KEY:<tabs>value` lines; each document is a
 * `<DOCUMENT>` block with `<TYPE>`, `<FILENAME>` and a `<TEXT>` whose `<XML>` element holds the
 * cover page (primary_doc.xml) or the information table.
 */
export interface FullSubmission {
  /** First occurrence of each header key (the filer block comes first; later blocks are e.g. FILED BY). */
  header: Map<string, string>;
  documents: SubmissionDocument[];
}

export interface SubmissionDocument {
  type: string;
  fileName: string;
  /** Contents of <XML>...</XML>, or null for a plain-text document. */
  xml: string | null;
  /** 1-based line of the <DOCUMENT> tag, for reports. */
  line: number;
}

export function parseFullSubmission(text: string): FullSubmission {
  const headerEnd = text.search(/<\/SEC-HEADER>|<\/IMS-HEADER>|<DOCUMENT>/);
  if (headerEnd < 0) throw new FilingProblem('not an EDGAR full submission: no SGML header or <DOCUMENT> block', 'line 1');
  const header = new Map<string, string>();
  for (const line of text.slice(0, headerEnd).split(/\r?\n/)) {
    const match = /^\s*([A-Z][A-Z0-9 \-]*[A-Z0-9]):\s*(.*?)\s*$/.exec(line);
    if (match && match[2] !== '' && !header.has(match[1]!)) header.set(match[1]!, match[2]!);
  }
  const documents: SubmissionDocument[] = [];
  const blocks = /<DOCUMENT>([\s\S]*?)<\/DOCUMENT>/g;
  for (let block = blocks.exec(text); block; block = blocks.exec(text)) {
    const body = block[1]!;
    const line = countLines(text, block.index);
    const xml = /<XML>([\s\S]*?)<\/XML>/i.exec(body);
    documents.push({
      type: (/<TYPE>([^\r\n<]*)/.exec(body)?.[1] ?? '').trim(),
      fileName: (/<FILENAME>([^\r\n<]*)/.exec(body)?.[1] ?? '').trim(),
      xml: xml ? xml[1]! : null,
      line,
    });
  }
  return { header, documents };
}

function countLines(text: string, upTo: number): number {
  let lines = 1;
  for (let index = text.indexOf('\n'); index >= 0 && index < upTo; index = text.indexOf('\n', index + 1)) lines++;
  return lines;
}
