/**
 * The identity of a record within its resource: what `diff` matches records by and what drift
 * counts as a key lost or new. A change of any other field makes the record "changed", not
 * removed and added. Trades are keyed by position (investor, issuer, class, kind), so a position
 * that went from `added` to `trimmed` is one changed row.
 */
const KEYS: Record<string, RecordKeyOf> = {
  articles: keyOf(['locale', 'slug'], ['/']),
  events: keyOf(['id'], []),
  investors: keyOf(['slug'], []),
  consensus: keyOf(['issuerName', 'titleOfClass'], [' | ']),
  trades: keyOf(['investorSlug', 'issuerName', 'titleOfClass', 'kind'], [': ', ' | ', ' | ']),
};

/**
 * A resource's key as the top-level fields it is made of and the text between them, so that a
 * reader that finds those fields in a record's line without parsing it (diff) makes the same key.
 */
export interface RecordKeyOf {
  fields: readonly string[];
  /** What comes between two fields: one fewer than the fields. */
  separators: readonly string[];
  /** The key of these field values, each as text (as a template literal writes it). */
  join(values: readonly unknown[]): string;
}

function keyOf(fields: readonly string[], separators: readonly string[]): RecordKeyOf {
  return {
    fields,
    separators,
    join: (values) => values.map((value, i) => (i === 0 ? String(value) : `${separators[i - 1]}${String(value)}`)).join(''),
  };
}

export function recordKeyOf(resource: string): RecordKeyOf {
  const key = KEYS[resource];
  if (key === undefined) throw new Error(`no record key for resource ${resource}`);
  return key;
}

export function recordKey(resource: string, record: unknown): string {
  const key = recordKeyOf(resource);
  if (typeof record !== 'object' || record === null) throw new Error(`no record key for resource ${resource}`);
  const fields = record as Record<string, unknown>;
  return key.join(key.fields.map((field) => fields[field]));
}
