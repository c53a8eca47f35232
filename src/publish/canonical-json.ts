import stableStringify from 'fast-json-stable-stringify';

/**
 * Canonical JSON: object keys sorted, no whitespace, and nothing JSON cannot carry exactly.
 * NaN, Infinity and undefined would otherwise turn silently into null or vanish, changing a record
 * without changing its digest's meaning, so they are refused.
 */
export function canonicalJson(value: unknown): string {
  assertCanonicalizable(value, '$');
  return stableStringify(value);
}

function assertCanonicalizable(value: unknown, at: string): void {
  if (value === undefined) throw new TypeError(`${at} is undefined, which JSON cannot carry`);
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`${at} is ${value}, which JSON cannot carry`);
  if (typeof value === 'bigint' || typeof value === 'function' || typeof value === 'symbol') {
    throw new TypeError(`${at} is a ${typeof value}, which JSON cannot carry`);
  }
  if (Array.isArray(value)) {
    // forEach, not for...of: it skips an array's holes, which serialize as null like JSON.stringify's.
    value.forEach((item, i) => {
      assertCanonicalizable(item, `${at}[${i}]`);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) assertCanonicalizable(item, `${at}.${key}`);
  }
}
