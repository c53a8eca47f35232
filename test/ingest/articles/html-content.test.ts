import { describe, expect, it } from 'vitest';
import { describeArticle, truncateText } from '../../../src/ingest/articles/description.js';
import { plainText, renderMarkdown, sanitizeArticleHtml } from '../../../src/ingest/articles/html-content.js';

describe('article HTML', () => {
  it('removes scripts, styles, frames and their content', () => {
    const html = sanitizeArticleHtml(
      '<p>ok</p><script>alert(1)</script><style>p{color:red}</style><iframe src="https://ads.example/"></iframe>',
    );
    expect(html).toBe('<p>ok</p>');
  });

  it('removes event handlers and javascript:/data: URLs but keeps the text', () => {
    const html = sanitizeArticleHtml(
      '<p onclick="steal()"><a href="javascript:alert(1)" onmouseover="x()">a</a> <a href="data:text/html,x">b</a></p>' +
        '<img src="x.png" onerror="alert(1)" alt="chart"><img src="javascript:alert(1)">',
    );
    expect(html).not.toMatch(/onclick|onmouseover|onerror|javascript:|data:/);
    expect(html).toContain('<img src="x.png" alt="chart" />');
    expect(html).toContain('>a</a>');
  });

  it('marks every link noopener noreferrer nofollow and drops target', () => {
    const html = sanitizeArticleHtml('<a href="https://www.eia.gov/" target="_blank" rel="opener">EIA</a>');
    expect(html).toBe('<a href="https://www.eia.gov/" rel="noopener noreferrer nofollow">EIA</a>');
  });

  it('keeps editorial structure: headings, lists, emphasis, code, quotes, aligned tables, relative images', () => {
    const html = sanitizeArticleHtml(
      renderMarkdown(
        '## Outlook\n\n- **one**\n- *two*\n\n> quoted `code`\n\n| a | b |\n|:--|--:|\n| 1 | 2 |\n\n![chart](images/chart.png)\n',
      ),
    );
    for (const fragment of [
      '<h2>',
      '<li><strong>one</strong></li>',
      '<em>two</em>',
      '<blockquote>',
      '<code>code</code>',
      '<td style="text-align:right">2</td>',
      '<img src="images/chart.png" alt="chart" />',
    ]) {
      expect(html).toContain(fragment);
    }
  });

  it('plainText decodes entities and joins wrapped CJK lines without a space', () => {
    expect(plainText('<p>S&amp;P 500 &lt;b&gt;</p>')).toBe('S&P 500 <b>');
    expect(plainText('日本銀行は\n据え置いた。')).toBe('日本銀行は据え置いた。');
    expect(plainText('first\nsecond')).toBe('first second');
  });

  it('describes an article by its written description, else its first paragraph, cut near 200 characters', () => {
    expect(describeArticle('Written.', false, '<p>Body.</p>')).toBe('Written.');
    expect(describeArticle(undefined, false, '<h2>Head</h2><p>First <em>para</em>.</p><p>Second.</p>')).toBe('First para.');
    const long = describeArticle(undefined, false, `<p>${'word '.repeat(80)}</p>`);
    expect(long.endsWith('…')).toBe(true);
    expect(Array.from(long).length).toBeLessThanOrEqual(201);
    expect(truncateText('株'.repeat(250), 200)).toBe(`${'株'.repeat(200)}…`);
  });

  it('keeps a written plain-text description as text, and reads an HTML one (RSS) by its markup', () => {
    expect(describeArticle('Inflation <below target> and x<y,\n  says the desk', false, '<p>Body.</p>')).toBe(
      'Inflation <below target> and x<y, says the desk',
    );
    expect(describeArticle('A <b>summary</b> &amp; more', true, '<p>Body.</p>')).toBe('A summary & more');
  });
});
