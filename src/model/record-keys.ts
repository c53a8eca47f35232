/**
 * The identity of a record within its resource: what `diff` matches records by and what drift
 * counts as a key lost or new. A change of any other field makes the record "changed", not
 * removed and added. Trades are keyed by position (investor, issuer, class, kind), so a position
 * that went from `added` to `trimmed` is one changed row.
 */
const KEYS: Record<string, (record: Record<string, unknown>) => string> = {
  articles: (r) => `${r.locale}/${r.slug}`,
  events: (r) => String(r.id),
  investors: (r) => String(r.slug),
  consensus: (r) => `${r.issuerName} | ${r.titleOfClass}`,
  trades: (r) => `${r.investorSlug}: ${r.issuerName} | ${r.titleOfClass} | ${r.kind}`,
};

export function recordKey(resource: string, record: unknown): string {
  const key = KEYS[resource];
  if (key === undefined || typeof record !== 'object' || record === null) throw new Error(`no record key for resource ${resource}`);
  return key(record as Record<string, unknown>);
}
