import { describe, expect, it } from 'vitest';
import { splitFrontMatter } from '../../../src/ingest/articles/front-matter.js';
import { readMarkdownArticle } from '../../../src/ingest/articles/markdown-article.js';

const article = (text: string) => readMarkdownArticle({ relativePath: 'articles/x.md', content: Buffer.from(text) });

describe('splitFrontMatter knows YAML and nothing else', () => {
  it.each(['---js', '---javascript', '---JS', '--- javascript', '---yaml', '---coffee', '---  js  '])(
    'refuses a fence followed by a language word (%j) at line 1',
    (fence) => {
      expect(splitFrontMatter(`${fence}\n({ title: 'x' })\n---\nbody\n`)).toEqual({
        kind: 'refused',
        line: 1,
        reason: 'front matter must be YAML',
      });
    },
  );

  it('splits a plain fence, keeping line numbers of the YAML equal to those of the file', () => {
    const split = splitFrontMatter('---\ntitle: A\nauthor: B\n---\n# Body\n');
    expect(split).toEqual({ kind: 'split', yaml: '\ntitle: A\nauthor: B\n', body: '# Body\n' });
  });

  it('normalises CRLF and bare CR line ends before splitting, so no field keeps a \\r', () => {
    expect(splitFrontMatter('---\r\ntitle: A\r\n---\r\nbody\r\n')).toEqual({ kind: 'split', yaml: '\ntitle: A\n', body: 'body\n' });
    expect(splitFrontMatter('---\rtitle: A\r---\rbody')).toEqual({ kind: 'split', yaml: '\ntitle: A\n', body: 'body' });
  });

  it('refuses a front matter block that is never closed, and one that is missing', () => {
    expect(splitFrontMatter('---\ntitle: A\n')).toMatchObject({ kind: 'refused', reason: /never closed/ });
    expect(splitFrontMatter('# Just Markdown\n')).toMatchObject({ kind: 'refused', reason: /^missing/ });
  });

  it('accepts a closing fence on the last line with no line break after it', () => {
    expect(splitFrontMatter('\uFEFF---\ntitle: A\n---')).toEqual({ kind: 'split', yaml: '\ntitle: A\n', body: '' });
  });
});

describe('readMarkdownArticle on front matter that tries to run code', () => {
  it('rejects JavaScript front matter at line 1 without evaluating it', () => {
    const marker = { ran: false };
    (globalThis as Record<string, unknown>).__pdsnapFrontMatterProbe = marker;
    const batch = article("---js\nglobalThis.__pdsnapFrontMatterProbe.ran = true; ({ title: 'x' })\n---\nbody\n");
    expect(marker.ran).toBe(false);
    expect(batch.drafts).toEqual([]);
    expect(batch.rejections).toEqual([{ source: 'articles/x.md', location: 'front matter, line 1', reason: 'front matter must be YAML' }]);
  });

  it('reads YAML tags meant for other languages as nothing more than text', () => {
    const batch = article('---\ntitle: !!js/function "function () { return 1 }"\n---\nbody\n');
    expect(batch.rejections).toEqual([]);
    expect(JSON.stringify(batch.drafts)).not.toContain('[Function');
  });

  it('rejects a YAML alias bomb by the alias limit, naming the front matter', () => {
    const lines = ['---', 'a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 9; i += 1)
      lines.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(97 + i)}`)
          .join(',')}]`,
      );
    lines.push('title: bomb', '---', 'body');
    const batch = article(lines.join('\n'));
    expect(batch.drafts).toEqual([]);
    expect(batch.rejections[0]).toMatchObject({ source: 'articles/x.md', reason: /^invalid YAML: .*alias/i });
  });
});
