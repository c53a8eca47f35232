/**
 * Code blocks in article content. A block of code is published as `<pre><code>…</code></pre>`
 * whatever shape the source gave it, so that clients style one shape and no code loses its lines:
 *
 * - a wrapper whose class names a code snippet (`<div class="codesnip">`, below) would be
 *   stripped as a `div`, leaving its code inline: it becomes the `<pre>` instead;
 * - a `<pre>` holding anything but one `<code>` element gets its content wrapped in one, and a
 *   `<br>` inside it becomes the line break it stood for (a wrapper `div` showed lines by `<br>`).
 */
export const CODE_SNIPPET_CLASSES: readonly string[] = ['codesnip', 'code-snippet', 'codeblock', 'code-block'];

export function isCodeSnippetWrapper(tagName: string, attribs: Readonly<Record<string, string>>): boolean {
  return (
    tagName === 'div' &&
    (attribs.class ?? '')
      .toLowerCase()
      .split(/\s+/)
      .some((name) => CODE_SNIPPET_CLASSES.includes(name))
  );
}

/**
 * Every `<pre>` of sanitized HTML as `<pre><code>…</code></pre>`. The input is sanitize-html's
 * output with code blocks never nested (see sanitizeArticleHtml), where `<pre>` carries no
 * attribute and a `<` in text is escaped, so the tags found here are real and flat.
 */
export function asCodeBlocks(html: string): string {
  return html.replace(/<pre>([\s\S]*?)<\/pre>/g, (_whole, inner: string) => {
    const lines = inner.replace(/<br \/>(?:\r?\n)?/g, '\n');
    // White space around a lone <code> only adds blank lines.
    const trimmed = lines.trim();
    const isOneCode = /^<code[ >]/.test(trimmed) && trimmed.endsWith('</code>') && trimmed.indexOf('<code', 1) === -1;
    return isOneCode ? `<pre>${trimmed}</pre>` : `<pre><code>${lines}</code></pre>`;
  });
}
