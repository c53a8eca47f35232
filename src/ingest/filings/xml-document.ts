import { readXml } from '../xml-reader.js';
import { SourceProblem } from '../source-problem.js';

/**
 * Parses an EDGAR XML document into plain objects keyed by local element names, with the one XML
 * reader configuration (no entity declarations, a depth limit).
 *
 * - Namespace prefixes are dropped: EDGAR files use the default namespace or a prefix (`ns1:`,
 *   `n1:`, `com:`); the element's local name is what identifies it.
 * - No value conversion: numbers stay text so CUSIPs and CIKs keep their leading zeros; the
 *   field readers (filing-fields.ts) check and convert them.
 * - Blank lines or a byte-order mark before `<?xml` (common in real filings) are tolerated.
 *
 * `firstLine` is the line of the file on which `text` starts (XML inside a full submission), so
 * that a problem is reported at its line in the file.
 */
const ARRAYS = new Set(['infoTable']);

export type XmlNode = { [name: string]: XmlValue };
export type XmlValue = string | XmlNode | XmlValue[];

export function parseXmlDocument(text: string, firstLine = 1): XmlNode {
  // EDGAR validates filings against their schema, so an entity XML does not define is no slip to forgive.
  const read = readXml(text, { arrays: ARRAYS, removeNamespacePrefix: true, undefinedEntities: 'refuse' });
  if (read.ok) return read.root as XmlNode;
  const line = read.line + firstLine - 1;
  const location = read.column === undefined ? `line ${line}` : `line ${line}, column ${read.column}`;
  throw new SourceProblem(read.kind === 'syntax' ? `XML does not parse: ${read.reason}` : read.reason, location);
}

/** The child element at a path of local names, or undefined. */
export function child(node: XmlValue | undefined, ...path: string[]): XmlValue | undefined {
  let current: XmlValue | undefined = node;
  for (const name of path) {
    if (current === undefined || typeof current === 'string' || Array.isArray(current)) return undefined;
    current = current[name];
  }
  return current;
}

/** Text content at a path; an empty element (parsed as "") gives "". */
export function text(node: XmlValue | undefined, ...path: string[]): string | undefined {
  const found = child(node, ...path);
  if (found === undefined) return undefined;
  if (typeof found === 'string') return found;
  if (Array.isArray(found)) return typeof found[0] === 'string' ? found[0] : undefined;
  // An element holding only attributes or nothing parses as an object without children.
  return Object.keys(found).length === 0 ? '' : undefined;
}

/**
 * A name at a path: a line break with the indentation around it, as a tool wraps long element
 * text, is one space (as in the SEC's tab-separated data sets, which hold no line breaks). Other
 * spacing stays as filed.
 */
export function nameText(node: XmlValue | undefined, ...path: string[]): string | undefined {
  return text(node, ...path)?.replace(/[ \t]*[\r\n][\s]*/g, ' ');
}

/** The name of the document element (the reader's root object holds nothing else). */
export function rootName(document: XmlNode): string | undefined {
  return Object.keys(document)[0];
}
