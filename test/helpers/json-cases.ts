/**
 * Seeded random JSON for tests of code that reads JSON from its bytes (json-members.ts, line-keys.ts,
 * changed-fields.ts): values of every kind, strings with escapes, quotes, brackets and multi-byte
 * characters, numbers that JSON spells more than one way. A failing seed can be replayed.
 */
export function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const TEXTS = [
  '',
  'a',
  'COM',
  'ROWEST "NEW" ROEL INC',
  'back\\slash',
  'x\ny',
  '{[,:]}',
  'Société Générale',
  '日本',
  '😀',
  'tab\there',
  '"',
];

export function randomText(next: () => number): string {
  return TEXTS[Math.floor(next() * TEXTS.length)]! + (next() < 0.5 ? String(Math.floor(next() * 100)) : '');
}

/** A JSON value up to `depth` levels deep. */
export function randomValue(next: () => number, depth = 3): unknown {
  const roll = next();
  if (roll < 0.25) return randomText(next);
  if (roll < 0.45) return Math.floor(next() * 2_000_000) - 1_000_000;
  if (roll < 0.55) return Math.round(next() * 1e6) / 1e3;
  if (roll < 0.6) return [true, false, null][Math.floor(next() * 3)];
  if (depth === 0 || roll < 0.8) return randomText(next);
  if (roll < 0.9) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth - 1));
  return randomObject(next, depth - 1);
}

export function randomObject(next: () => number, depth = 3, names = ['a', 'b', 'kind', 'slug', 'value', 'zeta']): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const name of names) if (next() < 0.7) object[name] = randomValue(next, depth);
  return object;
}

/** JSON with keys sorted, as pdsnap writes records. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The same value spelled another way, as JSON allows: escapes for plain characters, numbers with
 * a fraction or an exponent, keys in another order. JSON.parse reads both alike.
 */
export function respelled(value: unknown, next: () => number): string {
  if (typeof value === 'string') {
    if (value.length === 0 || next() < 0.5) return JSON.stringify(value);
    const at = Math.floor(next() * value.length);
    const code = value.charCodeAt(at);
    return (
      JSON.stringify(value.slice(0, at)).slice(0, -1) +
      `\\u${code.toString(16).padStart(4, '0')}` +
      JSON.stringify(value.slice(at + 1)).slice(1)
    );
  }
  if (typeof value === 'number' && Number.isInteger(value) && next() < 0.5) return next() < 0.5 ? `${value}.0` : `${value}e0`;
  if (Array.isArray(value)) return `[${value.map((item) => respelled(item, next)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (next() < 0.5) entries.reverse();
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${respelled(v, next)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
