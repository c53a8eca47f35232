import { XMLParser, XMLValidator, type X2jOptions } from 'fast-xml-parser';
import { LineCounter } from './line-index.js';
import { MAX_XML_DEPTH } from './source-limits.js';

/**
 * The one XML reader configuration, used by every XML source: RSS and Atom feeds, provider
 * calendar exports, primary_doc.xml and information tables, and the XML inside full submissions.
 *
 * As defusedxml does: an entity declaration anywhere (external or internal, in a DOCTYPE or not)
 * rejects the document, so no entity is ever resolved, fetched or published; a DOCTYPE without
 * declarations (RSS 0.91 feeds carry one) is blanked out and ignored, never fetched; a DOCTYPE
 * after the root element is refused (the parser would otherwise read it there). Elements may nest
 * MAX_XML_DEPTH deep. XML forbids the NUL character, so a document holding one is not XML.
 */
export interface XmlReadOptions {
  /** Elements whose content is kept as raw text (feed text constructs that may hold HTML). */
  rawElements?: string[];
  /** Elements always read as arrays, so that one child is not a special case. */
  arrays?: ReadonlySet<string>;
  /** Keep attributes, as `@_name`. */
  attributes?: boolean;
  /** Drop namespace prefixes (`content:encoded` -> `encoded`). */
  removeNamespacePrefix?: boolean;
}

export type XmlRead =
  | { ok: true; root: Record<string, unknown> }
  | {
      ok: false;
      /** 1-based line in the text given, and column when known. */
      line: number;
      column?: number;
      /** `syntax`: not well-formed; `refused`: well-formed perhaps, but not allowed here. */
      kind: 'syntax' | 'refused';
      reason: string;
    };

export const ENTITY_REFUSAL = 'entity declarations are not allowed';

export function readXml(text: string, options: XmlReadOptions = {}): XmlRead {
  const withoutBom = text.replace(/^\uFEFF/, '');
  const document = withoutBom.trimStart();
  // Lines of the text as given, although the XML declaration must come first for the parser.
  const skippedLines = new LineCounter(withoutBom).lineAt(withoutBom.length - document.length) - 1;
  const lines = new LineCounter(document);
  const failAt = (offset: number, kind: 'syntax' | 'refused', reason: string): XmlRead => ({
    ok: false,
    line: lines.lineAt(offset) + skippedLines,
    kind,
    reason,
  });

  const nul = document.indexOf('\u0000');
  if (nul !== -1) return failAt(nul, 'refused', 'a NUL character, which XML does not allow');
  const screened = screenDeclarations(document);
  if ('reason' in screened) return failAt(screened.offset, 'refused', screened.reason);

  const valid = XMLValidator.validate(screened.text);
  if (valid !== true) {
    return { ok: false, line: valid.err.line + skippedLines, column: valid.err.col, kind: 'syntax', reason: valid.err.msg };
  }
  const parserOptions: Partial<X2jOptions> = {
    ignoreAttributes: !options.attributes,
    attributeNamePrefix: '@_',
    removeNSPrefix: options.removeNamespacePrefix ?? true,
    // Values stay text: CUSIPs keep leading zeros, "0.3%" and "8:30am" are not numbers.
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    // Only the five predefined entities and character references: no DOCTYPE is left to declare others.
    processEntities: true,
    htmlEntities: false,
    maxNestedTags: MAX_XML_DEPTH,
    stopNodes: (options.rawElements ?? []).map((name) => `*.${name}`),
    isArray: (name) => options.arrays?.has(name) ?? false,
    // The callbacks above look at names only: no path string is built for every element.
    jPath: false,
  };
  try {
    return { ok: true, root: new XMLParser(parserOptions).parse(screened.text) as Record<string, unknown> };
  } catch (error) {
    const message = (error as Error).message;
    if (/nested tags/i.test(message)) {
      return failAt(tooDeepAt(screened.text), 'refused', `elements nested deeper than ${MAX_XML_DEPTH} levels`);
    }
    return failAt(0, 'syntax', message);
  }
}

/**
 * Finds entity declarations and DOCTYPEs outside comments, CDATA sections and processing
 * instructions, in one pass. A DOCTYPE before the root element is replaced by spaces (line breaks
 * kept, so line numbers stay true) once its internal subset is known to declare no entity.
 */
function screenDeclarations(text: string): { text: string } | { offset: number; reason: string } {
  // Before the root element every start tag is looked at (the first one is the root); after it,
  // only what can hide or declare something, so the rest of the document is skimmed.
  const beforeRoot = /<!--|<!\[CDATA\[|<\?|<!DOCTYPE|<!ENTITY|<[A-Za-z_:]/gi;
  const afterRoot = /<!--|<!\[CDATA\[|<\?|<!DOCTYPE|<!ENTITY/gi;
  let markup = beforeRoot;
  let doctype: [start: number, end: number] | null = null;
  for (let match = markup.exec(text); match; match = markup.exec(text)) {
    const token = match[0].toUpperCase();
    const terminator = token === '<!--' ? '-->' : token === '<![CDATA[' ? ']]>' : token === '<?' ? '?>' : null;
    if (terminator) {
      const end = text.indexOf(terminator, match.index + token.length);
      if (end === -1) break; // unterminated: the validator names it
      markup.lastIndex = end + terminator.length;
    } else if (token === '<!ENTITY') {
      return { offset: match.index, reason: ENTITY_REFUSAL };
    } else if (token === '<!DOCTYPE') {
      if (markup === afterRoot || doctype) return { offset: match.index, reason: 'a DOCTYPE may only come once, before the root element' };
      const end = doctypeEnd(text, match.index + token.length);
      if ('reason' in end) return end;
      doctype = [match.index, end.end];
      markup.lastIndex = end.end;
    } else {
      afterRoot.lastIndex = markup.lastIndex;
      markup = afterRoot;
    }
  }
  return { text: blank(text, doctype) };
}

/**
 * The end of a DOCTYPE whose name follows `from`: quoted system/public ids are skipped, and the
 * internal subset `[...]` is searched for entity declarations and parameter-entity references.
 */
function doctypeEnd(text: string, from: number): { end: number } | { offset: number; reason: string } {
  let index = from;
  let inSubset = false;
  while (index < text.length) {
    const char = text[index]!;
    if (char === '"' || char === "'") {
      const close = text.indexOf(char, index + 1);
      if (close === -1) break;
      index = close + 1;
    } else if (inSubset && text.startsWith('<!--', index)) {
      const close = text.indexOf('-->', index + 4);
      if (close === -1) break;
      index = close + 3;
    } else if (inSubset && text.slice(index, index + 8).toUpperCase() === '<!ENTITY') {
      return { offset: index, reason: ENTITY_REFUSAL };
    } else if (inSubset && char === '%' && /[A-Za-z_:]/.test(text[index + 1] ?? '')) {
      return { offset: index, reason: 'parameter entity references are not allowed' };
    } else if (char === '[' && !inSubset) {
      inSubset = true;
      index++;
    } else if (char === ']' && inSubset) {
      inSubset = false;
      index++;
    } else if (char === '>' && !inSubset) {
      return { end: index + 1 };
    } else index++;
  }
  return { offset: from, reason: 'the DOCTYPE is never closed' };
}

function blank(text: string, range: [number, number] | null): string {
  if (!range) return text;
  const [start, end] = range;
  return text.slice(0, start) + text.slice(start, end).replace(/[^\r\n]/g, ' ') + text.slice(end);
}

/** Offset of the first start tag nested deeper than the limit (only looked for once the parser refused). */
function tooDeepAt(text: string): number {
  const tags = /<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<[?!][^>]*>|<(\/?)[A-Za-z_:](?:[^>"']|"[^"]*"|'[^']*')*?(\/?)>/g;
  let depth = 0;
  for (let match = tags.exec(text); match; match = tags.exec(text)) {
    if (match[1] === '/') depth--;
    else if (match[1] === '' && match[2] === '') {
      depth++;
      if (depth > MAX_XML_DEPTH) return match.index;
    }
  }
  return 0;
}
