/**
 * Splits a Markdown article into its YAML front matter and its body. It knows one language only:
 * the opening fence must be `---` alone on the first line. A fence followed by a language word
 * (`---js`, `--- javascript`, even `---yaml`) is refused, never dispatched to another parser, so no
 * article can make the build evaluate code.
 */
export type FrontMatterSplit = { kind: 'split'; yaml: string; body: string } | { kind: 'refused'; line?: number; reason: string };

const FENCE = /^---[ \t]*$/;

/** Line ends are normalised first (CRLF and bare CR to LF), so no field keeps a stray `\r`. */
export function splitFrontMatter(text: string): FrontMatterSplit {
  const normalised = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const firstBreak = normalised.indexOf('\n');
  const firstLine = firstBreak === -1 ? normalised : normalised.slice(0, firstBreak);
  if (!firstLine.startsWith('---')) {
    return { kind: 'refused', reason: 'missing: a Markdown article starts with a --- YAML front matter block' };
  }
  if (!FENCE.test(firstLine)) return { kind: 'refused', line: 1, reason: 'front matter must be YAML' };
  if (firstBreak === -1) return { kind: 'refused', line: 1, reason: 'front matter is never closed by a --- line' };
  let lineStart = firstBreak + 1;
  while (lineStart <= normalised.length) {
    const lineEnd = normalised.indexOf('\n', lineStart);
    const end = lineEnd === -1 ? normalised.length : lineEnd;
    if (FENCE.test(normalised.slice(lineStart, end))) {
      return {
        kind: 'split',
        // Keep the first line's break so that line N of `yaml` is line N of the file.
        yaml: normalised.slice(firstBreak, lineStart),
        body: lineEnd === -1 ? '' : normalised.slice(lineEnd + 1),
      };
    }
    if (lineEnd === -1) break;
    lineStart = lineEnd + 1;
  }
  return { kind: 'refused', line: 1, reason: 'front matter is never closed by a --- line' };
}
