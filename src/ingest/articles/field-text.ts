/** A non-blank string with its whitespace collapsed, or undefined. */
export function textOf(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  // A number is text as JavaScript prints it, but not one beyond a double (a 400-digit number is Infinity).
  if (typeof value === 'number' && !Number.isFinite(value)) return undefined;
  const text = String(value).replace(/\s+/g, ' ').trim();
  return text === '' ? undefined : text;
}

/** Authors as Jekyll, Hugo and feeds write them: "Ana Park", {name}, or a list of either. */
export function authorName(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    const names = value.map(authorName).filter((name): name is string => name !== undefined);
    return names.length > 0 ? names.join(', ') : undefined;
  }
  if (typeof value === 'object' && value !== null) return textOf((value as { name?: unknown }).name);
  return textOf(value);
}
