/**
 * CUSIP, ISIN and FIGI: what they look like, their check digits, and where they stand in a text.
 *
 * One definition for every part that meets them: ingest strips them from the names Smart Money
 * publishes, the content rule (build and validate) refuses a record that still carries one, and
 * the sample generator makes CUSIPs with correct check digits. Pure: no I/O.
 *
 * A token only counts when its check digit is right, so ordinary words and numbers are not taken
 * for identifiers (a random 9-digit number still passes the CUSIP check one time in ten, which is
 * why a token must also stand on a boundary; see locateSecurityIdentifiers).
 */

export type SecurityIdentifierKind = 'CUSIP' | 'ISIN' | 'FIGI';

export interface SecurityIdentifierSpan {
  kind: SecurityIdentifierKind;
  value: string;
  /** Offsets in the text: value === text.slice(start, end). */
  start: number;
  end: number;
}

/**
 * Value of one identifier character: digits 0-9, letters A-Z 10-35, and the three characters the
 * CUSIP standard allows in private placement numbers, * 36, @ 37, # 38. -1 for anything else.
 */
function characterValue(char: string): number {
  const code = char.charCodeAt(0);
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 90) return code - 55;
  if (char === '*') return 36;
  if (char === '@') return 37;
  if (char === '#') return 38;
  return -1;
}

/**
 * The "modulus 10 double-add-double" check digit of the CUSIP standard, which FIGI uses too:
 * every second character's value (the 2nd, 4th, ... from the left) is doubled, the digits of all
 * values are added, and the check digit brings the sum to a multiple of ten. Null when a
 * character is outside the standard's set.
 */
function doubleAddDoubleCheckDigit(body: string): number | null {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let value = characterValue(body[i]!);
    if (value < 0) return null;
    if (i % 2 === 1) value *= 2;
    sum += Math.floor(value / 10) + (value % 10);
  }
  return (10 - (sum % 10)) % 10;
}

/** The check digit of an 8-character CUSIP base (0-9, A-Z, *, @, #); null for anything else. */
export function cusipCheckDigit(base: string): number | null {
  return base.length === 8 ? doubleAddDoubleCheckDigit(base) : null;
}

const CUSIP_SHAPE = /^[0-9A-Z*@#]{8}[0-9]$/;
const ISIN_SHAPE = /^[A-Z]{2}[0-9A-Z]{9}[0-9]$/;
// OpenFIGI: "BBG", eight digits or consonants (no vowels), then the check digit.
const FIGI_SHAPE = /^BBG[0-9B-DF-HJ-NP-TV-Z]{8}[0-9]$/;

export function isValidCusip(token: string): boolean {
  return CUSIP_SHAPE.test(token) && cusipCheckDigit(token.slice(0, 8)) === Number(token[8]);
}

/** ISIN (ISO 6166): letters become two digits (A = 10), then the Luhn check over all of it. */
export function isValidIsin(token: string): boolean {
  if (!ISIN_SHAPE.test(token)) return false;
  const digits = [...token].map((char) => String(characterValue(char))).join('');
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let value = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) value *= 2;
    sum += value > 9 ? value - 9 : value;
  }
  return sum % 10 === 0;
}

export function isValidFigi(token: string): boolean {
  return FIGI_SHAPE.test(token) && doubleAddDoubleCheckDigit(token.slice(0, 11)) === Number(token[11]);
}

// ---------------------------------------------------------------------------------------------
// Finding identifiers in text

/** Characters that end a word before a token: spaces, brackets, quotes, tags, and # : / = glue. */
const SEPARATOR_BEFORE = new Set([...'()[]{}<>,;:"\'#/=|']);
/** Characters that may follow a token: the same, plus sentence punctuation and a query's &. */
const SEPARATOR_AFTER = new Set([...'()[]{}<>,;:"\'#/=|.!?&']);
/** Words that announce an identifier; a token glued to one (`ISINUS0378331005`) still counts. */
const LABEL = /(?:CUSIP|ISIN|FIGI)$/i;
/** A URL runs to the next space, quote or angle bracket. */
const URL_PATTERN = /(?:https?:\/\/|www\.)[^\s"'<>]*/gi;

const isLetterOrDigit = (code: number) => (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
const isDigit = (char: string | undefined) => char !== undefined && char >= '0' && char <= '9';
const isLetter = (char: string | undefined) => char !== undefined && /^[A-Za-z]$/.test(char);
const isWhitespace = (char: string | undefined) => char !== undefined && /^\s$/.test(char);

function startsToken(text: string, at: number): boolean {
  if (at === 0) return true;
  const before = text[at - 1]!;
  if (isWhitespace(before) || SEPARATOR_BEFORE.has(before)) return true;
  if (!isLetter(before)) return false;
  // Letters then digits: `CUSIP037833100`, `INC037833100`.
  if (isDigit(text[at])) return true;
  const last = before.toUpperCase(); // the last letter of CUSIP, ISIN or FIGI, before a closer look
  return (last === 'P' || last === 'N' || last === 'I') && LABEL.test(text.slice(Math.max(0, at - 5), at)) && labelStartsWord(text, at);
}

/** The label word itself must start a word, so that `XISIN...` is not a label. */
function labelStartsWord(text: string, at: number): boolean {
  const word = LABEL.exec(text.slice(Math.max(0, at - 5), at))![0];
  const before = text[at - word.length - 1];
  return before === undefined || !/[A-Za-z0-9]/.test(before);
}

function endsToken(text: string, at: number): boolean {
  if (at === text.length) return true;
  const after = text[at]!;
  return isWhitespace(after) || SEPARATOR_AFTER.has(after);
}

/** `cusip=037833100`, `/cusip/037833100`: a label (and at most one separator) right before. */
function isLabelled(text: string, at: number): boolean {
  return /(?:CUSIP|ISIN|FIGI)[#:=/_-]?$/i.test(text.slice(Math.max(0, at - 6), at));
}

function urlRanges(text: string): Array<[number, number]> {
  return [...text.matchAll(URL_PATTERN)].map((m) => [m.index, m.index + m[0].length]);
}

const CANDIDATES: Array<{ kind: SecurityIdentifierKind; length: number; valid: (token: string) => boolean }> = [
  // A FIGI (BBG...) may pass the ISIN check by chance; it is the more specific of the two.
  { kind: 'FIGI', length: 12, valid: isValidFigi },
  { kind: 'ISIN', length: 12, valid: isValidIsin },
  // In text, * @ # are punctuation (`ISIN#...`), not the private-placement characters of a CUSIP.
  { kind: 'CUSIP', length: 9, valid: (token) => /^[0-9A-Z]{9}$/.test(token) && isValidCusip(token) },
];

/**
 * Every CUSIP, ISIN and FIGI written in capitals in a text, with its check digit right, standing
 * as a token: at the start or after a space, bracket, quote, tag, `,` `;` `:` `#` `/` `=` or `|`,
 * after letters when the token starts with a digit (`INC037833100`), or right after the words
 * CUSIP, ISIN or FIGI; and ending at the end, a space or punctuation (`-` and `_` join words, so
 * `story-037833100` is not a token).
 *
 * Inside a link, an all-digit token counts only when a label names it (`?cusip=037833100`): sites
 * number their pages, and one 9-digit page number in ten passes the CUSIP check. A token with
 * letters (an ISIN, a FIGI, a CUSIP like 88160R101) counts in a link as anywhere else.
 */
export function locateSecurityIdentifiers(text: string): SecurityIdentifierSpan[] {
  const found: SecurityIdentifierSpan[] = [];
  if (!/\d/.test(text)) return found; // every identifier ends with a check digit
  const urls = urlRanges(text);
  const inUrl = (at: number) => urls.some(([start, end]) => at >= start && at < end);
  let at = 0;
  while (at < text.length) {
    const first = text[at]!;
    // In lower case only right after its label and a separator (`isin us0378331005`): elsewhere it
    // is a word. The cheap test first: prose is mostly lower-case letters after letters.
    const caseless =
      first >= 'a' &&
      first <= 'z' &&
      at > 0 &&
      !isLetterOrDigit(text.charCodeAt(at - 1)) &&
      LABEL_BEFORE.test(text.slice(Math.max(0, at - 12), at));
    const candidate = (isDigit(first) || (first >= 'A' && first <= 'Z') || caseless) && startsToken(text, at);
    const match = candidate ? identifierAt(text, at, caseless) : null;
    if (match && (!/^\d+$/.test(match.value) || !inUrl(at) || isLabelled(text, at))) {
      found.push(match);
      at = match.end;
    } else {
      at++;
    }
  }
  return found;
}

function identifierAt(text: string, start: number, caseless: boolean): SecurityIdentifierSpan | null {
  for (const candidate of CANDIDATES) {
    const end = start + candidate.length;
    if (end > text.length) continue;
    const written = text.slice(start, end);
    const token = caseless ? written.toUpperCase() : written;
    // `-` joins words, but a token with letters before one is an identifier with a suffix (`US0378331005-ADR`).
    if (!endsToken(text, end) && !(text[end] === '-' && /[A-Z]/.test(token))) continue;
    if (candidate.valid(token)) return { kind: candidate.kind, value: written, start, end };
  }
  // A CUSIP printed in its 6-2-1 groups, as on certificates and prospectuses: `037833-10-0`, or
  // with spaces after its label (`CUSIP 037833 10 0`; unlabelled, spaced digits are too common).
  const separator = text[start + 6];
  if ((separator !== '-' && separator !== ' ') || text[start + 9] !== separator) return null;
  const grouped = GROUPED_CUSIP.exec((caseless ? text.toUpperCase() : text).slice(start, start + 11));
  const labelled = () => LABEL_BEFORE.test(text.slice(Math.max(0, start - 12), start));
  if (grouped && (separator === '-' || labelled()) && endsToken(text, start + 11)) {
    const token = `${grouped[1]}${grouped[3]}${grouped[4]}`;
    if (/^[0-9A-Z]{9}$/.test(token) && isValidCusip(token))
      return { kind: 'CUSIP', value: text.slice(start, start + 11), start, end: start + 11 };
  }
  return null;
}

/** Its label right before a token, with the glue between: `ISIN `, `cusip: `, `FIGI=`. */
const LABEL_BEFORE = /(?:^|[^A-Za-z0-9])(?:CUSIP|ISIN|FIGI)\s*[#:=/]?\s*$/i;
const GROUPED_CUSIP = /^([0-9A-Z]{6})([ -])([0-9A-Z]{2})\2([0-9])/;

// ---------------------------------------------------------------------------------------------
// Removing identifiers from a name

export interface StrippedName {
  /** The name without its identifiers, labels and the brackets that held only them. */
  name: string;
  removed: SecurityIdentifierSpan[];
}

const GLUE_BEFORE = /[\s#:=/]/;

/**
 * A name without the identifiers a filer typed into it: `WPP PLC NEW ADR ISIN#US92937A1025` ->
 * `WPP PLC NEW ADR`, `APPLE INC (CUSIP: 037833100)` -> `APPLE INC`. The label word (CUSIP, ISIN,
 * FIGI) and the glue before each identifier go with it, and so do brackets left empty.
 */
export function stripSecurityIdentifiers(text: string): StrippedName {
  const removed = locateSecurityIdentifiers(text);
  if (removed.length === 0) return { name: text, removed };
  let name = '';
  let kept = 0;
  for (const span of removed) {
    let cut = span.start;
    while (cut > kept && GLUE_BEFORE.test(text[cut - 1]!)) cut--;
    const label = /(?:CUSIP|ISIN|FIGI)$/i.exec(text.slice(kept, cut));
    if (label && (cut - label[0].length === kept || !/[A-Za-z0-9]/.test(text[cut - label[0].length - 1]!))) {
      cut -= label[0].length;
      while (cut > kept && GLUE_BEFORE.test(text[cut - 1]!)) cut--;
    }
    name += `${text.slice(kept, cut)} `;
    // A suffix joined to the identifier (`US0378331005-ADR`) stays, as a word of its own.
    kept = text[span.end] === '-' ? span.end + 1 : span.end;
  }
  name += text.slice(kept);
  const tidy = name
    .replace(/[([{]\s*[)\]}]/g, ' ') // brackets that held only the identifier
    .replace(/\s+/g, ' ')
    .replace(/\s+([)\]},.;])/g, '$1')
    .replace(/^[\s,;:#/=|-]+|[\s,;:#/=|-]+$/g, '');
  return { name: tidy, removed };
}
