import { BoundedTextMemo } from '../lib/bounded-text-memo.js';

/**
 * The query string parser of both profiles. Like the default one (`+` is a space, a repeated name
 * gives an array, which validation refuses), except that a value or name whose percent-escapes are
 * not valid UTF-8 (`?category=%FF`) is not silently turned into U+FFFD: it becomes an
 * InvalidEncoding marker, which parameter validation refuses with 400, naming the parameter.
 */
export class InvalidEncoding {
  constructor(readonly raw: string) {}
}

export type QueryValue = string | InvalidEncoding | Array<string | InvalidEncoding>;

/**
 * Most requests repeat a few query strings (`limit=20`), so the parsed object of a short query string
 * is kept, frozen, and handed out again: parameter validation then finds its own answer for that
 * object too (parameter-validation.ts). At most 1,024 are kept; the memory starts over when full,
 * so a client sending a new query string on every request costs a parse each time and no memory.
 */
const KEPT_MAX_LENGTH = 256;
const parsedQueries = new BoundedTextMemo((text) => deepFreeze(parse(text)), 1024);

export function parseQueryString(text: string): Readonly<Record<string, QueryValue>> {
  return text.length > KEPT_MAX_LENGTH ? parse(text) : parsedQueries.of(text);
}

function deepFreeze(query: Record<string, QueryValue>): Readonly<Record<string, QueryValue>> {
  for (const value of Object.values(query)) Object.freeze(value);
  return Object.freeze(query);
}

function parse(text: string): Record<string, QueryValue> {
  const query: Record<string, QueryValue> = Object.create(null);
  if (text === '') return query;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const rawName = equals === -1 ? pair : pair.slice(0, equals);
    const rawValue = equals === -1 ? '' : pair.slice(equals + 1);
    const name = decode(rawName);
    // A name that does not decode is kept as written, so the refusal can name it.
    const key = typeof name === 'string' ? name : rawName;
    const value = typeof name === 'string' ? decode(rawValue) : name;
    const existing = query[key];
    if (existing === undefined) query[key] = value;
    else query[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return query;
}

function decode(text: string): string | InvalidEncoding {
  const spaced = text.includes('+') ? text.replace(/\+/g, ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return new InvalidEncoding(text);
  }
}
