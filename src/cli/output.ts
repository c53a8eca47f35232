/** Machine-readable output goes to stdout, one JSON document, newline-terminated. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Human-readable output goes to stdout too; progress and diagnostics go to stderr. */
export function printLine(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** Renders rows as an aligned text table. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
