import { SaxesParser } from 'saxes';
import { LineCounter } from './line-index.js';
import { MAX_XML_ATTRIBUTES, MAX_XML_DEPTH } from './source-limits.js';

/**
 * The one XML reader configuration, used by every XML source: RSS and Atom feeds, provider
 * calendar exports, primary_doc.xml and information tables, and the XML inside full submissions.
 *
 * As defusedxml does: an entity declaration anywhere (external or internal, in a DOCTYPE or not)
 * rejects the document, so no entity is ever resolved, fetched or published; a DOCTYPE without
 * declarations (RSS 0.91 feeds carry one) is blanked out and ignored, never fetched; a DOCTYPE
 * after the root element is refused (the parser would otherwise read it there). Elements may nest
 * MAX_XML_DEPTH deep. A character XML forbids (NUL and other controls) makes the text not XML.
 *
 * The parse itself is strict and one pass (saxes): well-formedness is checked while the elements
 * are read, where a lenient parser needed a validating pass of its own first, and four times the time.
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
  /**
   * With removeNamespacePrefix, drop only these prefixes and keep the others as written
   * (`media:title` stays apart from `title`).
   */
  droppedPrefixes?: ReadonlySet<string>;
  /**
   * An entity reference XML does not define (`&nbsp;`): `keep` it as written (the default; a sloppy
   * feed's HTML layer decodes it), or `refuse` the document as XML does (not well-formed).
   */
  undefinedEntities?: 'keep' | 'refuse';
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

const ENTITY_REFUSAL = 'entity declarations are not allowed';

export function readXml(text: string, options: XmlReadOptions = {}): XmlRead {
  const withoutBom = text.replace(/^\uFEFF/, '');
  const document = withoutBom.trimStart();
  // Lines of the text as given, although the XML declaration must come first for the parser.
  const skippedLines = new LineCounter(withoutBom).lineAt(withoutBom.length - document.length) - 1;
  const lines = new LineCounter(document);
  const failAt = (offset: number, kind: 'syntax' | 'refused', reason: string, column?: number): XmlRead => ({
    ok: false,
    line: lines.lineAt(offset) + skippedLines,
    ...(column === undefined ? {} : { column }),
    kind,
    reason,
  });

  const forbidden = FORBIDDEN_CHARACTER.exec(document);
  if (forbidden) return failAt(forbidden.index, 'refused', forbiddenReason(forbidden[0]));
  if (document === '') return failAt(0, 'syntax', 'the document is empty');
  // saxes names text before the root element only once the document ends; name where it starts.
  if (!document.startsWith('<')) return failAt(0, 'syntax', 'text before the root element', 1);
  const screened = screenDeclarations(document);
  if ('reason' in screened) return failAt(screened.offset, 'refused', screened.reason);

  const parsed = parseElements(screened.text, options);
  if ('root' in parsed) return { ok: true, root: parsed.root };
  if ('offset' in parsed) return failAt(parsed.offset, parsed.kind, parsed.reason);
  return {
    ok: false,
    line: parsed.line + skippedLines,
    ...(parsed.column > 0 ? { column: parsed.column } : {}),
    kind: parsed.kind,
    reason: parsed.reason,
  };
}

/**
 * Characters that XML 1.0 does not allow anywhere (C0 controls but tab, LF and CR; U+FFFE, U+FFFF;
 * unpaired surrogates): a document holding one is not XML. Checked here, before the parser, so the
 * reason names the character.
 */
const FORBIDDEN_CHARACTER =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function forbiddenReason(character: string): string {
  if (character === '\u0000') return 'a NUL character, which XML does not allow';
  const code = character.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
  return `the character U+${code}, which XML does not allow`;
}

type Node = Record<string, unknown>;

/** An element being read: its children, attributes and text so far. */
interface OpenElement {
  name: string;
  children: Node | null;
  attributes: Node | null;
  text: string;
  /** Offset just after the start tag of an element kept raw. */
  rawFrom: number;
}

type Problem = { kind: 'syntax' | 'refused'; reason: string } & ({ offset: number } | { line: number; column: number });

/** Thrown out of saxes' callbacks to stop at the first problem. */
class Stop extends Error {}

/**
 * One strict pass of saxes (well-formedness is checked as the elements are read) building plain
 * objects the way the readers expect them: an element without attributes or children is its text
 * (trimmed, "" when empty), one with them an object of children by local name, `#text` and
 * `@_attribute`s; siblings of one name become an array, as do names in `options.arrays` always.
 * CDATA joins the text as it is. Objects have no prototype, so an element named `__proto__` is
 * just a key. XML 1.0 rules whatever the declaration says: 1.1 would let control characters in
 * as character references and count U+2028 as a line break.
 */
function parseElements(text: string, options: XmlReadOptions): { root: Node } | Problem {
  const parser = new SaxesParser({ xmlns: false, position: true, forceXMLVersion: true, defaultXMLVersion: '1.0' } as const);
  // An entity that is not one of XML's five (&nbsp; in a sloppy feed) stays as written, for the HTML
  // layer to decode or show: looked up here rather than failed and forgiven, which costs an Error a
  // reference. A name that is no XML name (an unescaped "&" in a URL) still fails.
  if (options.undefinedEntities !== 'refuse') {
    parser.ENTITIES = new Proxy(parser.ENTITIES, {
      get: (predefined, name) =>
        typeof name !== 'string' ? undefined : (predefined[name] ?? (ENTITY_NAME.test(name) ? `&${name};` : undefined)),
    });
  }
  const rawElements = new Set(options.rawElements ?? []);
  const dropped = options.droppedPrefixes;
  const localName =
    options.removeNamespacePrefix === false
      ? (name: string) => name
      : dropped === undefined
        ? withoutPrefix
        : (name: string) => (dropped.has(name.slice(0, Math.max(0, name.indexOf(':')))) ? withoutPrefix(name) : name);
  const top: OpenElement = { name: '', children: null, attributes: null, text: '', rawFrom: 0 };
  const stack: OpenElement[] = [top];
  let depth = 0;
  let attributeCount = 0;
  // Inside an element kept raw: how deep, so that its own end tag is known.
  let rawDepth = 0;
  let problem: Problem | undefined;
  // An end tag that does not match closes the open elements above its match first: the last one closed is the one expected.
  let lastClosed = '';
  const stop = (found: Problem): never => {
    problem = found;
    throw new Stop();
  };

  parser.on('error', (error) => {
    const said = error.message.replace(/^\d+:\d+: /, '').replace(/\.$/, '');
    // An "&" that starts no reference is the commonest mistake in hand-made XML, and saxes reads on to
    // the next ";" (or the end) before it says so: name the "&" itself when one came before.
    const ampersand = bareAmpersandBefore(text, parser.position);
    if (ampersand !== -1)
      stop({ offset: ampersand, kind: 'syntax', reason: 'an "&" that starts no entity or character reference (write it as &amp;)' });
    if (said === 'undefined entity') {
      // saxes has just read the reference: name it.
      const reference = /&([^&;\s]*);?$/.exec(text.slice(Math.max(0, parser.position - 200), parser.position))?.[1];
      const reason = `the entity &${reference ?? '?'}; is not defined in XML (only &amp; &lt; &gt; &quot; &apos; and character references are)`;
      stop({ line: parser.line, column: parser.column, kind: 'syntax', reason });
    }
    stop({ line: parser.line, column: parser.column, kind: 'syntax', reason: explained(said, lastClosed) });
  });
  parser.on('opentagstart', () => {
    attributeCount = 0;
  });
  parser.on('attribute', () => {
    if (++attributeCount > MAX_XML_ATTRIBUTES) {
      stop({ line: parser.line, column: 0, kind: 'refused', reason: `an element with more than ${MAX_XML_ATTRIBUTES} attributes` });
    }
  });
  parser.on('opentag', (tag) => {
    depth++;
    if (depth > MAX_XML_DEPTH)
      stop({ line: parser.line, column: 0, kind: 'refused', reason: `elements nested deeper than ${MAX_XML_DEPTH} levels` });
    if (rawDepth > 0) {
      rawDepth++;
      return;
    }
    const name = localName(tag.name);
    stack.push({
      name,
      children: null,
      attributes: options.attributes ? attributesOf(tag.attributes, localName) : null,
      text: '',
      rawFrom: parser.position,
    });
    if (rawElements.has(name)) rawDepth = 1;
  });
  // Trimmed once the element closes, not per chunk: a comment inside a name splits its text, and
  // "COCA COLA <!-- x -->CO" keeps its space.
  parser.on('text', (chunk) => {
    if (rawDepth === 0) stack[stack.length - 1]!.text += chunk;
  });
  parser.on('cdata', (chunk) => {
    if (rawDepth === 0) stack[stack.length - 1]!.text += chunk;
  });
  parser.on('closetag', (tag) => {
    depth--;
    lastClosed = tag.name;
    if (rawDepth > 1) {
      rawDepth--;
      return;
    }
    const element = stack.pop()!;
    if (rawDepth === 0) element.text = element.text.trim();
    if (rawDepth === 1) {
      rawDepth = 0;
      // The end tag is the last "</" before the parser's position; a self-closed element has no content.
      // Line ends as the parser gives them everywhere else: CRLF and a bare CR become LF.
      element.text = tag.isSelfClosing
        ? ''
        : text.slice(element.rawFrom, text.lastIndexOf('</', parser.position - 1)).replace(/\r\n?/g, '\n');
    }
    const parent = stack[stack.length - 1]!;
    parent.children ??= Object.create(null) as Node;
    addChild(parent.children, element.name, elementValue(element), options.arrays);
  });

  try {
    parser.write(text).close();
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    return problem!;
  }
  return { root: top.children ?? (Object.create(null) as Node) };
}

/** A name saxes may look up as an entity (broader than XML's Name production at the edges; never spaces or markup). */
const NAME = '[A-Za-z_:\\u00C0-\\uFFFF][\\w.:\\-\\u00B7-\\uFFFF]*';
const ENTITY_NAME = new RegExp(`^${NAME}$`);
/** A reference as saxes reads one: an entity name or a character number, then ";". */
const REFERENCE = new RegExp(`&(?:${NAME}|#[0-9]+|#x[0-9A-Fa-f]+);`, 'y');

/** saxes' reason, with what it leaves out: the element an end tag does not match, or the one left open at the end. */
function explained(reason: string, lastClosed: string): string {
  const unclosed = /^unclosed tag: (.*)$/.exec(reason);
  if (unclosed) return `the document ends before <${unclosed[1]}> is closed`;
  if (reason === 'unexpected close tag') return `an end tag where </${lastClosed}> was expected`;
  if (reason === 'malformed comment') return 'a comment holding "--" (XML allows it only in the closing "-->")';
  return reason;
}

/** Offset of the first "&" before `end` that starts no reference, outside comments, CDATA and processing instructions; -1 when none. */
function bareAmpersandBefore(text: string, end: number): number {
  const markup = /<!--[\s\S]*?(?:-->|$)|<!\[CDATA\[[\s\S]*?(?:\]\]>|$)|<\?[\s\S]*?(?:\?>|$)|&/g;
  for (let match = markup.exec(text); match && match.index < end; match = markup.exec(text)) {
    if (match[0] !== '&') continue;
    REFERENCE.lastIndex = match.index;
    if (!REFERENCE.test(text)) return match.index;
  }
  return -1;
}

function withoutPrefix(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/** `@_name` for each attribute, by local name; namespace declarations are not data. */
function attributesOf(attributes: Record<string, string>, localName: (name: string) => string): Node | null {
  let kept: Node | null = null;
  for (const [name, value] of Object.entries(attributes)) {
    if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
    kept ??= Object.create(null) as Node;
    kept[`@_${localName(name)}`] = value.trim();
  }
  return kept;
}

function elementValue(element: OpenElement): unknown {
  if (!element.children && !element.attributes) return element.text;
  const node = element.children ?? (Object.create(null) as Node);
  if (element.text !== '') node['#text'] = element.text;
  if (element.attributes) Object.assign(node, element.attributes);
  return node;
}

function addChild(children: Node, name: string, value: unknown, arrays: ReadonlySet<string> | undefined): void {
  const existing = children[name];
  // An element's value is never an array of its own, so an array here is one this reader made.
  if (existing === undefined) children[name] = arrays?.has(name) ? [value] : value;
  else if (Array.isArray(existing)) existing.push(value);
  else children[name] = [existing, value];
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
      if (end === -1) break; // unterminated: the parser names it
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
