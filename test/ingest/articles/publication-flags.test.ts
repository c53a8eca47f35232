import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { deriveArticles } from '../../../src/derive/articles.js';
import { ingestArticles } from '../../../src/ingest/articles/index.js';
import { tempDir } from '../../helpers/cli.js';

/**
 * What keeps an article out of the dataset although it is well formed: Jekyll's `published: false`,
 * Hugo's `draft`, `publishDate` and `expiryDate`, in Markdown and JSON articles alike. An embargoed
 * or withdrawn article must never be published by a guess.
 */

const NOW = new Date('2026-11-22T12:00:00.000Z');
const SOURCES_YAML = `sources:
  - id: harbor-wire
    locale: en-US
    rights: { license: Harbor Wire Syndication Agreement 2026, holder: Harbor Wire Media LLC, reuse: with-attribution }
    attribution: { source: Harbor Wire, url: "https://www.harborwire.example/", text: "Used under license." }
    defaults: { author: Harbor Wire Staff, category: markets }
`;

const article = (slug: string, extra: string) =>
  `---\ntitle: ${slug}\nsource: harbor-wire\ndate: 2026-11-01\n${extra}---\n\nBody of ${slug}.\n`;

const FILES: Record<string, string> = {
  'plain.md': article('plain', ''),
  'jekyll-unpublished.md': article('jekyll-unpublished', 'published: false\n'),
  'jekyll-published.md': article('jekyll-published', 'published: true\n'),
  'draft-string.md': article('draft-string', 'draft: "true"\n'),
  'draft-yes.md': article('draft-yes', 'draft: yes\n'),
  'embargoed.md': article('embargoed', 'publishDate: 2026-12-15T00:00:00Z\n'),
  'released.md': article('released', 'publishDate: 2026-11-20T09:00:00Z\n'),
  'expired.md': article('expired', 'expiryDate: 2026-11-10\n'),
  'expires-later.md': article('expires-later', 'expiryDate: 2027-01-01\n'),
  'expiry-typo.md': article('expiry-typo', 'expiryDate: next week\n'),
};

let result: Awaited<ReturnType<typeof ingestArticles>>;
let derived: ReturnType<typeof deriveArticles>;

beforeAll(async () => {
  const root = await tempDir('publication-flags');
  await mkdir(path.join(root, 'articles/en-US'), { recursive: true });
  await writeFile(path.join(root, 'articles/sources.yaml'), SOURCES_YAML);
  for (const [name, text] of Object.entries(FILES)) await writeFile(path.join(root, 'articles/en-US', name), text);
  await writeFile(
    path.join(root, 'articles/en-US/withdrawn.json'),
    JSON.stringify({ title: 'withdrawn', source: 'harbor-wire', date: '2026-11-01', published: false, body: 'Gone.' }),
  );
  result = await ingestArticles(root);
  derived = deriveArticles(result.records, NOW);
});

const reasonOf = (file: string) => [...result.rejections, ...derived.rejections].find((r) => r.source.endsWith(file))?.reason;
const noteOf = (file: string) => [...result.notes, ...derived.notes].find((n) => n.source.endsWith(file))?.message;

describe('articles kept out by their own front matter', () => {
  it('publishes only the articles that are due and not withdrawn', () => {
    expect(derived.records.map((a) => a.slug).sort()).toEqual(['expires-later', 'jekyll-published', 'plain', 'released']);
  });

  it('leaves out Jekyll published: false, in Markdown and JSON, with a note', () => {
    expect(noteOf('jekyll-unpublished.md')).toBe('front matter: unpublished article (published: false) excluded');
    expect(noteOf('withdrawn.json')).toMatch(/unpublished article \(published: false\) excluded$/);
  });

  it('refuses a draft flag that is no boolean instead of guessing, naming the value', () => {
    expect(reasonOf('draft-string.md')).toBe('draft must be true or false, not "true"');
    expect(reasonOf('draft-yes.md')).toBe('draft must be true or false, not "yes"');
  });

  it('takes Hugo publishDate as the publication instant: not due before it', () => {
    expect(reasonOf('embargoed.md')).toMatch(/^publishedAt 2026-12-15T00:00:00\.000Z is after the build time/);
    expect(derived.records.find((a) => a.slug === 'released')?.publishedAt).toBe('2026-11-20T09:00:00.000Z');
  });

  it('leaves out an article past its Hugo expiryDate with a note, and refuses one that is no date', () => {
    expect(noteOf('expired.md')).toBe(
      'front matter: expired at 2026-11-10T00:00:00.000Z (expiryDate), before the build time 2026-11-22T12:00:00.000Z; not published',
    );
    expect(reasonOf('expiry-typo.md')).toMatch(/^expiryDate: /);
  });
});
