/**
 * Text that is published must not carry a NUL character (U+0000): it truncates strings in C
 * libraries, databases and terminals downstream, and no editorial or financial text needs one.
 * Readers decode NUL escapes (`\u0000` in JSON, `\0` in YAML) as data, so every record is checked
 * here, field by field, before it is accepted; the record is rejected naming the field.
 */
export function fieldWithNul(value: unknown, name = '(value)'): string | undefined {
  // An explicit stack: a value read from a source may nest deeper than the call stack allows.
  const pending: [unknown, string][] = [[value, name]];
  while (pending.length > 0) {
    const [current, path] = pending.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return path;
    } else if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--) pending.push([current[index], `${path}[${index}]`]);
    } else if (typeof current === 'object' && current !== null) {
      const entries = Object.entries(current);
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, child] = entries[index]!;
        pending.push([child, path === '(value)' ? key : `${path}.${key}`]);
      }
    }
  }
  return undefined;
}

export function nulProblem(field: string): string {
  return `${field} contains a NUL character (U+0000)`;
}
