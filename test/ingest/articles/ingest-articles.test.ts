import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ingestArticles } from '../../../src/ingest/articles/index.js';
import type { Article } from '../../../src/model/article.js';
import type { IngestResult, Sourced } from '../../../src/model/dataset-build.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/articles');

function bySlug(result: IngestResult<Sourced<Article>>, slug: string): Sourced<Article> {
  const found = result.records.find((entry) => entry.record.slug === slug);
  if (!found) throw new Error(`no article ${slug} in ${result.records.map((r) => r.record.slug).join(', ')}`);
  return found;
}

function rejectionOf(result: IngestResult<Sourced<Article>>, source: string) {
  return result.rejections.filter((r) => r.source === source);
}

describe('ingestArticles on well-formed sources of every format', () => {
  let result: IngestResult<Sourced<Article>>;
  beforeAll(async () => {
    result = await ingestArticles(path.join(FIXTURES, 'valid'));
  });

  it('reads everything without a rejection and lists every file read as provenance', () => {
    expect(result.rejections).toEqual([]);
    expect(result.records).toHaveLength(12);
    expect(result.sources.map((s) => s.path)).toContain('articles/sources.yaml');
    expect(result.sources.map((s) => s.path)).toContain('articles/feeds/harbor-wire-rss.xml');
    for (const file of result.sources) expect(file.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reads Markdown front matter: offset date to UTC, first category slugged, rights from the registry', () => {
    const article = bySlug(result, 'fed-minutes-signal-patience');
    expect(article).toMatchObject({ source: 'articles/en-US/2026-11-20-fed-minutes-signal-patience.md', location: 'front matter' });
    expect(article.record).toMatchObject({
      title: 'Fed minutes signal patience on further cuts',
      publishedAt: '2026-11-20T19:30:00.000Z',
      category: 'policy',
      locale: 'en-US',
      author: 'Dana Whitfield',
      image: 'images/fed-minutes.jpg',
      rights: { license: 'Harbor Wire Syndication Agreement 2026', holder: 'Harbor Wire Media LLC', reuse: 'with-attribution' },
      attribution: {
        source: 'Harbor Wire',
        url: 'https://www.harborwire.example/',
        text: '© 2026 Harbor Wire Media LLC. Used under license.',
      },
    });
    expect(article.record.description).toMatch(/^Minutes of the Federal Open Market Committee/);
  });

  it('sanitizes Markdown content: no script, event handler, javascript: link or frame survives', () => {
    const { content } = bySlug(result, 'fed-minutes-signal-patience').record;
    expect(content).not.toMatch(/<script|alert\('tracking'\)|onerror|onmouseover|href="javascript:|<iframe/);
    expect(content).toContain(
      '<a href="https://www.federalreserve.gov/monetarypolicy/fomcminutes.htm" rel="noopener noreferrer nofollow">',
    );
    expect(content).toContain('<li>the labour market has cooled but remains <strong>solid</strong>;</li>');
    expect(content).toContain('<th style="text-align:left">Meeting</th>');
  });

  it('uses explicit rights and attribution written in front matter when there is no source id', () => {
    const article = bySlug(result, 'bok-rate-decision');
    expect(article.record).toMatchObject({
      locale: 'ko-KR',
      category: 'policy',
      publishedAt: '2026-11-18T01:15:00.000Z',
      rights: { license: 'CC BY-NC 4.0', holder: '서울경제연구소', reuse: 'with-attribution' },
      attribution: { source: '서울경제연구소', url: 'https://seoul-econ.example/' },
    });
  });

  it('gives an article with a non-Latin file name and title a stable hash slug', () => {
    const article = result.records.find((entry) => entry.source === 'articles/ja-JP/日銀短観.md');
    expect(article?.record.slug).toMatch(/^article-[0-9a-f]{8}$/);
    expect(article?.record).toMatchObject({ locale: 'ja-JP', author: 'さくらマーケッツ編集部', category: 'economy' });
  });

  it('keeps only relative image paths and notes the dropped absolute one', () => {
    expect(bySlug(result, 'treasury-10y-auction-recap').record.image).toBe('');
    expect(result.notes).toContainEqual({
      source: 'articles/en-US/treasury-auction-recap.md',
      message: expect.stringContaining('absolute image URL "https://cdn.example.com/auction.png" dropped'),
    });
  });

  it('reads JSON article files: Markdown body, or contentHtml that is sanitized', () => {
    const pmi = bySlug(result, 'euro-area-pmi-winter');
    expect(pmi).toMatchObject({ source: 'articles/json/desk-notes.json', location: 'record 1' });
    expect(pmi.record.content).toContain('<strong>48.9</strong>');
    const credit = bySlug(result, 'chinas-november-credit-data');
    expect(credit.record).toMatchObject({ locale: 'zh-CN', publishedAt: '2026-11-12T09:00:00.000Z', rights: { reuse: 'free' } });
    expect(credit.record.content).not.toContain('onclick');
  });

  it('reads RSS 2.0 items: RFC 822 dates, dc:creator, content:encoded, slug from the title', () => {
    // The slug comes from the title, not from the link's path (a path may not identify the item).
    const oil = bySlug(result, 'oil-slips-as-opec-weighs-output-plan');
    expect(oil).toMatchObject({ source: 'articles/feeds/harbor-wire-rss.xml', location: 'item 1' });
    expect(oil.record).toMatchObject({
      title: 'Oil slips as OPEC+ weighs output plan',
      publishedAt: '2026-11-21T18:05:00.000Z',
      author: 'Priya Raman',
      category: 'commodities',
      description: 'Brent fell 1.4% & WTI followed.',
      locale: 'en-US',
      rights: { holder: 'Harbor Wire Media LLC' },
    });
    expect(oil.record.content).not.toMatch(/<script|onclick|target=/);
    const dollar = bySlug(result, 'dollar-steadies-ahead-of-payrolls');
    expect(dollar.record).toMatchObject({ author: 'Tom Okafor', publishedAt: '2026-11-20T14:17:00.000Z' });
    expect(dollar.record.content).toBe("<p>The dollar index held near 104.2 as traders awaited <em>Friday's</em> jobs report.</p>");
  });

  it('reads Atom 1.0 entries: html, xhtml and text content, feed author as fallback', () => {
    // A Korean title has no slug form: the link's last segment, which identifies the entry, is next.
    const exports = bySlug(result, 'export-first-20-days-nov');
    expect(exports).toMatchObject({ location: 'entry 1 (tag:hanbit-economy.example,2026:export-nov-20)' });
    expect(exports.record).toMatchObject({
      title: '수출 11월 1~20일 8.1% 증가',
      publishedAt: '2026-11-21T00:00:00.000Z',
      author: '박지훈',
      category: 'trade',
      rights: { reuse: 'free' },
    });
    expect(exports.record.content).toBe('<p>관세청에 따르면 11월 1~20일 수출은 <strong>392억 달러</strong>로 집계됐다.</p>');
    const loans = bySlug(result, 'household-loans-slow');
    expect(loans.record).toMatchObject({ author: '한빛경제 편집국', category: 'economy', publishedAt: '2026-11-19T03:00:00.000Z' });
    expect(loans.record.content).toContain('<p>10월 은행권 가계대출은 <em>3조 원</em> 늘어 증가 폭이 줄었다.</p>');
  });

  it('reads JSON Feed 1.1 items: content_html sanitized, content_text as paragraphs, registry defaults', () => {
    const yen = bySlug(result, 'yen-weakens-155');
    expect(yen.record).toMatchObject({
      author: '田中健',
      category: 'forex',
      publishedAt: '2026-11-21T06:30:00.000Z',
      description: '日米金利差を意識した円売りが続いた。',
    });
    expect(yen.record.content).not.toContain('data:');
    const jgb = result.records.find((entry) => entry.location === 'item 3 (sakura-jgb-auction)');
    expect(jgb?.record.content).toBe(
      '<p>財務省が実施した10年利付国債の入札は、応札倍率が3.2倍と前回を上回った。</p>\n<p>投資家の需要は底堅い。</p>',
    );
    expect(jgb?.record).toMatchObject({ author: 'さくらマーケッツ編集部', category: 'markets' });
  });

  it('excludes provider market snapshots from every format with a note, not a rejection', () => {
    const excluded = result.notes.filter((note) => note.message.includes('market snapshot excluded'));
    expect(excluded.map((note) => `${note.source} ${note.message.split(':')[0]}`)).toEqual([
      'articles/en-US/2026-11-16-daily-market-snapshot.md front matter',
      'articles/feeds/hanbit-atom.xml entry 2 (tag',
      'articles/feeds/harbor-wire-rss.xml item 2',
      'articles/feeds/sakura.json item 2 (sakura-nikkei-close-1120)',
    ]);
    expect(result.records.some((entry) => /snapshot|closing-prices|close/.test(entry.record.slug))).toBe(false);
  });
});

describe('ingestArticles on broken sources', () => {
  let result: IngestResult<Sourced<Article>>;
  beforeAll(async () => {
    result = await ingestArticles(path.join(FIXTURES, 'broken'));
  });

  it.each([
    ['articles/no-rights.md', 'front matter', /rights cannot be resolved: no rights and attribution/],
    ['articles/unknown-source.md', 'front matter', /^unknown source "ghost-wire": not declared in articles\/sources.yaml$/],
    ['articles/half-licensed.md', 'front matter', /unknown source "half-licensed"/],
    ['articles/incomplete-rights.md', 'front matter', /incomplete rights: rights\.reuse/],
    ['articles/broken-yaml.md', 'front matter, line 5', /invalid YAML/],
    ['articles/bad-date.md', 'front matter', /day out of range in date "2026-02-30"/],
    ['articles/no-offset.md', 'front matter', /no UTC offset/],
    ['articles/bad-slug.md', 'front matter', /invalid slug "Rates_Outlook!"/],
    ['articles/missing-title.md', 'front matter', /^missing title$/],
    ['articles/no-front-matter.md', 'front matter', /missing: a Markdown article starts with/],
    ['articles/truncated.json', 'line 4', /invalid JSON/],
    ['articles/feeds/unavailable.xml', 'line 1, column 1', /not well-formed XML/],
    ['articles/feeds/undeclared.rss', 'document', /feed not declared in articles\/sources.yaml/],
    // A JSON Feed is told from a JSON article by its version, and gets the same reason as an XML feed.
    ['articles/feeds/undeclared.json', 'document', /^feed not declared in articles\/sources.yaml: its rights cannot be resolved$/],
    ['articles/feeds/ledger.atom', 'entry 2 (urn:uuid:jobless-claims)', /unrecognised date "yesterday afternoon"/],
  ])('rejects %s at %s', (source, location, reason) => {
    const rejections = rejectionOf(result, source);
    expect(rejections).toHaveLength(1);
    expect(rejections[0]!.location).toBe(location);
    expect(rejections[0]!.reason).toMatch(reason);
  });

  it('rejects each bad record of a JSON file by its position, in order', () => {
    expect(rejectionOf(result, 'articles/records.json')).toEqual([
      { source: 'articles/records.json', location: 'record 1', reason: 'missing date' },
      { source: 'articles/records.json', location: 'record 2', reason: 'an article must be a JSON object' },
    ]);
  });

  it('rejects bad registry entries and a declared feed whose file is missing', () => {
    const registry = rejectionOf(result, 'articles/sources.yaml');
    expect(registry.map((r) => r.location)).toEqual([
      'sources[3] (half-licensed), line 24',
      'sources[4] (wire), line 29',
      'source gazette',
    ]);
    expect(registry[0]!.reason).toMatch(/rights\.reuse/);
    expect(registry[1]!.reason).toMatch(/duplicate source id "wire"/);
    expect(registry[2]!.reason).toBe('feed file articles/feeds/gazette.xml not found');
  });

  it('goes on past the bad input and publishes what is good', () => {
    expect(result.records.map((entry) => entry.record.slug).sort()).toEqual(['a-fine-record', 'factory-orders-rise-for-a-second-month']);
    expect(bySlug(result, 'a-fine-record').record).toMatchObject({
      publishedAt: '2026-11-20T07:00:00.000Z',
      author: 'Ledger Desk',
      locale: 'en-US',
    });
  });
});

describe('ingestArticles without sources', () => {
  it('a missing articles folder gives zero records and no error', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'pdsnap-articles-'));
    try {
      expect(await ingestArticles(empty)).toEqual({ records: [], rejections: [], notes: [], sources: [] });
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
