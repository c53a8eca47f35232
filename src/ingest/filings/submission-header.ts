import { splitLines } from '../line-index.js';

/**
 * The header of an EDGAR full submission, in either of EDGAR's two layouts:
 *
 * - `key-value`: the `<SEC-HEADER>` of the Archives' `<accession>.txt`, lines of `KEY:<tabs>value`,
 *   nested blocks opened by a bare `FILER:` or `COMPANY DATA:` line and shown by indentation;
 * - `tagged`: the layout of the Public Dissemination Service (the `.nc` files feed subscribers
 *   receive, also EDGAR's `.hdr.sgml`): `<SUBMISSION>`, then one `<TAG>value` a line, nested blocks
 *   opened by a bare `<FILER>` and closed by `</FILER>`.
 *
 * Only the six fields a Form 13F needs are read, in the layout's own spelling; every other line,
 * tag or block (addresses, former names, series, flags such as `<PAPER>`) is passed over.
 */
export type HeaderField = 'accession' | 'submissionType' | 'period' | 'filedAt' | 'cik' | 'filerName';

export interface SubmissionHeader {
  layout: 'key-value' | 'tagged';
  /** The element the header sits in, for reports: `SEC-HEADER` or `SUBMISSION`. */
  element: string;
  /** Each field as the layout names it (`ACCESSION NUMBER`, `<ACCESSION-NUMBER>`), for reports. */
  names: Readonly<Record<HeaderField, string>>;
  values: Partial<Record<HeaderField, string>>;
}

const KEY_VALUE_NAMES: Readonly<Record<HeaderField, string>> = {
  accession: 'ACCESSION NUMBER',
  submissionType: 'CONFORMED SUBMISSION TYPE',
  period: 'CONFORMED PERIOD OF REPORT',
  filedAt: 'FILED AS OF DATE',
  cik: 'CENTRAL INDEX KEY',
  filerName: 'COMPANY CONFORMED NAME',
};

/** Paths of nested tags; the filer's CIK and name sit in `<FILER><COMPANY-DATA>`, not in `<FORMER-COMPANY>` or `<SERIES>`. */
const TAGGED_PATHS: Readonly<Record<HeaderField, string>> = {
  accession: 'ACCESSION-NUMBER',
  submissionType: 'TYPE',
  period: 'PERIOD',
  filedAt: 'FILING-DATE',
  cik: 'FILER/COMPANY-DATA/CIK',
  filerName: 'FILER/COMPANY-DATA/CONFORMED-NAME',
};

/** Tags in the deepest wanted path (`FILER/COMPANY-DATA/CIK`). */
const WANTED_DEPTH = Math.max(...Object.values(TAGGED_PATHS).map((tagPath) => tagPath.split('/').length));

const TAGGED_NAMES = Object.fromEntries(
  Object.entries(TAGGED_PATHS).map(([field, tagPath]) => [
    field,
    tagPath
      .split('/')
      .map((tag) => `<${tag}>`)
      .join(''),
  ]),
) as Record<HeaderField, string>;

const KEY_VALUE_LINE = /^\s*([A-Z][A-Z0-9 -]*[A-Z0-9]):\s*(.*?)\s*$/;
const TAG_LINE = /^\s*<(\/?)([A-Z][A-Z0-9-]*)>(.*)$/;

/** Reads the header text (everything before `</SEC-HEADER>` or the first `<DOCUMENT>`). */
export function readSubmissionHeader(headerText: string): SubmissionHeader {
  const lines = splitLines(headerText);
  const keyValue = keyValueFields(lines);
  const tagged = taggedFields(lines);
  // One layout per file: a tagged header has none of the KEY: value fields (its own tag lines never match them).
  if (Object.keys(keyValue).length === 0 && Object.keys(tagged).length > 0) {
    return {
      layout: 'tagged',
      element: /^\s*<SUBMISSION>/m.test(headerText) ? 'SUBMISSION' : 'SEC-HEADER',
      names: TAGGED_NAMES,
      values: tagged,
    };
  }
  return { layout: 'key-value', element: 'SEC-HEADER', names: KEY_VALUE_NAMES, values: keyValue };
}

/** The first occurrence of each key: the filer block comes first, later blocks are e.g. FILED BY. */
function keyValueFields(lines: string[]): Partial<Record<HeaderField, string>> {
  const byKey = new Map<string, string>();
  for (const line of lines) {
    const match = KEY_VALUE_LINE.exec(line);
    if (match && match[2] !== '' && !byKey.has(match[1]!)) byKey.set(match[1]!, match[2]!);
  }
  return pick(KEY_VALUE_NAMES, byKey);
}

/**
 * Tagged lines, each value recorded under the path of the blocks open around it (first occurrence
 * wins, so the first `<FILER>` is the filer). A bare `<TAG>` opens a block only when the header
 * closes it too: flags without a value (`<PAPER>`, `<CONFIRMING-COPY>`) and `<SUBMISSION>`, closed
 * after the documents, nest nothing. A close tag with no open block of its name is passed over.
 * Linear in the header whatever its nesting: a hostile header of a million open blocks costs one
 * pass (open blocks are counted by name, and no path deeper than the wanted ones is built).
 */
function taggedFields(lines: string[]): Partial<Record<HeaderField, string>> {
  const parsed = lines.map((line) => TAG_LINE.exec(line)).filter((match) => match !== null);
  const closed = new Set(parsed.filter((match) => match[1] === '/').map((match) => match[2]!));
  const open: string[] = [];
  const openCount = new Map<string, number>();
  const byPath = new Map<string, string>();
  for (const [, slash, tag, rest] of parsed) {
    const value = rest!.trim();
    if (slash === '/') {
      if (!openCount.get(tag!)) continue;
      for (let popped = open.pop(); ; popped = open.pop()) {
        openCount.set(popped!, openCount.get(popped!)! - 1);
        if (popped === tag) break;
      }
    } else if (value === '' && closed.has(tag!)) {
      open.push(tag!);
      openCount.set(tag!, (openCount.get(tag!) ?? 0) + 1);
    } else if (value !== '' && open.length < WANTED_DEPTH) {
      const tagPath = [...open, tag].join('/');
      if (!byPath.has(tagPath)) byPath.set(tagPath, value);
    }
  }
  return pick(TAGGED_PATHS, byPath);
}

function pick(keys: Readonly<Record<HeaderField, string>>, found: ReadonlyMap<string, string>): Partial<Record<HeaderField, string>> {
  const values: Partial<Record<HeaderField, string>> = {};
  for (const [field, key] of Object.entries(keys) as [HeaderField, string][]) {
    const value = found.get(key);
    if (value !== undefined) values[field] = value;
  }
  return values;
}
