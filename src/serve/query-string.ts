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

export function parseQueryString(text: string): Record<string, QueryValue> {
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
