import { describe, expect, it } from 'vitest';
import { describeArticle, truncateText } from '../../../src/ingest/articles/description.js';
import { plainText, renderMarkdown, sanitizeArticleHtml } from '../../../src/ingest/articles/html-content.js';

describe('article HTML', () => {
  it('removes scripts, styles, frames and their content', () => {
    const { html } = sanitizeArticleHtml(
      '<p>ok</p><script>alert(1)</script><style>p{color:red}</style><iframe src="https://ads.example/"></iframe>',
    );
    expect(html).toBe('<p>ok</p>');
  });

  it('removes event handlers and javascript:/data: URLs but keeps the text', () => {
    const { html } = sanitizeArticleHtml(
      '<p onclick="steal()"><a href="javascript:alert(1)" onmouseover="x()">a</a> <a href="data:text/html,x">b</a></p>' +
        '<img src="x.png" onerror="alert(1)" alt="chart"><img src="javascript:alert(1)">',
    );
    expect(html).not.toMatch(/onclick|onmouseover|onerror|javascript:|data:/);
    expect(html).toContain('<img src="x.png" alt="chart" />');
    expect(html).toContain('>a</a>');
  });

  it('marks every link noopener noreferrer nofollow and drops target', () => {
    const { html } = sanitizeArticleHtml('<a href="https://www.eia.gov/" target="_blank" rel="opener">EIA</a>');
    expect(html).toBe('<a href="https://www.eia.gov/" rel="noopener noreferrer nofollow">EIA</a>');
  });

  it('keeps editorial structure: headings, lists, emphasis, code, quotes, aligned tables, relative images', () => {
    const { html } = sanitizeArticleHtml(
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

describe('tracking pixels', () => {
  it("removes FeedBurner's 1×1 pixel and names its host", () => {
    const content = sanitizeArticleHtml(
      '<p>Volumes rose.</p><img src="http://feeds.feedburner.com/~r/QuaysideNotes/~4/Ab12Cd34Ef5" height="1" width="1" alt=""/>',
    );
    expect(content).toEqual({ html: '<p>Volumes rose.</p>', trackingPixels: ['feeds.feedburner.com'], empty: false });
  });

  it("removes every image of a tracker's host, whatever its size, and the links left empty around them (FeedBurner flare)", () => {
    const content = sanitizeArticleHtml(
      '<p>Text.</p><div class="feedflare"><a href="http://feeds.feedburner.com/~ff/QuaysideNotes?a=Ab12:Gh67:yIl2AUoC8zA">' +
        '<img src="http://feeds.feedburner.com/~ff/QuaysideNotes?d=yIl2AUoC8zA" border="0"></img></a></div>' +
        '<img src="https://ssl.google-analytics.com/__utm.gif?utmac=UA-1" alt="">',
    );
    expect(content.html).toBe('<p>Text.</p>');
    expect(content.trackingPixels).toEqual(['feeds.feedburner.com', 'ssl.google-analytics.com']);
  });

  it('removes a 1×1 or 0×0 image from any host, by attributes or by inline style, and keeps what is not both', () => {
    const content = sanitizeArticleHtml(
      [
        '<p>a</p>',
        '<img src="https://t.example.net/open.gif" style="border:0;width:1px!important;height:1px!important;">',
        '<img src="https://t.example.net/zero.gif" width="0" height="0">',
        '<img src="img/beacon.gif" width="1px" height="1.0">',
        // The style wins over the attributes, as in CSS: 600 wide is a picture.
        '<img src="https://t.example.net/wide.png" width="1" height="1" style="width: 600px">',
        '<img src="https://t.example.net/rule.png" width="600" height="1">',
        '<img src="https://myfeeds.feedburner.com.example.org/chart.png" alt="chart">',
      ].join(''),
    );
    expect(content.trackingPixels).toEqual(['t.example.net', 't.example.net', '']);
    expect(content.html).toBe(
      '<p>a</p><img src="https://t.example.net/wide.png" width="1" height="1" /><img src="https://t.example.net/rule.png" width="600" height="1" />' +
        '<img src="https://myfeeds.feedburner.com.example.org/chart.png" alt="chart" />',
    );
  });

  it('counts no pixel for an image that calls nobody: no src, or a data: spacer (dropped all the same)', () => {
    const content = sanitizeArticleHtml(
      '<p>a</p><img width="1" height="1"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="1" height="1">',
    );
    expect(content).toEqual({ html: '<p>a</p>', trackingPixels: [], empty: false });
  });

  it('marks content that was nothing but a pixel as empty', () => {
    expect(sanitizeArticleHtml('<p><img src="https://feedpress.me/link/20141/16544123.gif" height="1" width="1"/></p>')).toEqual({
      html: '',
      trackingPixels: ['feedpress.me'],
      empty: true,
    });
    expect(sanitizeArticleHtml('<hr><br><script>x()</script>').empty).toBe(true);
    expect(sanitizeArticleHtml('<img src="https://cdn.example/chart.png" alt="">').empty).toBe(false);
  });
});

describe('empty wrappers', () => {
  it('removes paragraphs, list items and headings left empty, keeping spaces inside inline elements and empty table cells', () => {
    const { html } = sanitizeArticleHtml(
      '<div class="entry-content"><p></p><p>&nbsp;</p><h2> </h2><p><br></p><p>Cargo <strong></strong>rose <em> </em>again.</p>' +
        '<ul><li></li><li> </li></ul><table><tr><td></td><td>2</td></tr></table></div>',
    );
    expect(html).toBe('<p>Cargo rose <em> </em>again.</p><table><tr><td></td><td>2</td></tr></table>');
  });

  it('keeps a paragraph whose only content is an image, however deep', () => {
    const html =
      '<p><a href="https://quay.example/" rel="noopener noreferrer nofollow"><img src="https://quay.example/c.png" alt="c" /></a></p>';
    expect(sanitizeArticleHtml(html).html).toBe(html);
  });
});

describe('code blocks', () => {
  it('keeps the code of a <div class="codesnip"> as a block, its <br> lines as lines', () => {
    const { html } = sanitizeArticleHtml(
      '<p>Run:</p><div class="codesnip-container"><div class="codesnip"><code>sudo apt update<br />\nsudo apt install nginx</code></div></div><p>Done.</p>',
    );
    expect(html).toBe('<p>Run:</p><pre><code>sudo apt update\nsudo apt install nginx</code></pre><p>Done.</p>');
  });

  it('wraps the text of a code snippet or a bare <pre> in <code>, and never nests blocks', () => {
    expect(sanitizeArticleHtml('<div class="codesnip">$ ls -l<br>$ pwd</div>').html).toBe('<pre><code>$ ls -l\n$ pwd</code></pre>');
    expect(sanitizeArticleHtml('<div class="code-block"><pre>x = 1\ny = 2</pre></div>').html).toBe('<pre><code>x = 1\ny = 2</code></pre>');
    expect(sanitizeArticleHtml('<pre>\n<code>a &lt; b</code>\n</pre>').html).toBe('<pre><code>a &lt; b</code></pre>');
    expect(sanitizeArticleHtml('<div class="codesnip"></div><p>After.</p>').html).toBe('<p>After.</p>');
  });

  it('leaves Markdown code blocks and inline code as they are', () => {
    const { html } = sanitizeArticleHtml(renderMarkdown('Use `jq`:\n\n```js\nconst a = 1;\n```\n'));
    expect(html).toBe('<p>Use <code>jq</code>:</p>\n<pre><code class="language-js">const a = 1;\n</code></pre>');
  });
});
