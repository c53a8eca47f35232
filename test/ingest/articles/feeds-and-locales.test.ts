import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { deriveArticles } from '../../../src/derive/articles.js';
import { ingestArticles } from '../../../src/ingest/articles/index.js';

/**
 * test/fixtures/articles/real-world: a WordPress category feed whose item links all have the path
 * /north-west/ and differ only in `?p=`, with two posts of the same title and one post listed
 * twice; and Markdown posts in locale folders that name their locale, or not.
 */
const REAL_WORLD = path.resolve('test/fixtures/articles/real-world');
const FEED = 'articles/feeds/northern-dispatch.xml';
const NOW = new Date('2026-11-22T00:00:00.000Z');
const TITLE_SLUG = 'north-west-weather-flood-warnings-extended';
const roots: string[] = [];

afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function build(root: string) {
  const ingested = await ingestArticles(root);
  return { ingested, derived: deriveArticles(ingested.records, NOW) };
}

/** Each published article as (publishedAt, title) -> slug: the posts of the fixture differ in publishedAt. */
function slugsByPost(published: { slug: string; title: string; publishedAt: string }[]): Map<string, string> {
  return new Map(published.map((article) => [`${article.publishedAt} ${article.title}`, article.slug]));
}

describe('slugs of feed items whose link path does not identify them', async () => {
  const { derived } = await build(REAL_WORLD);
  const fromFeed = derived.records.filter((article) => article.attribution.source === 'Northern Dispatch');

  it('publishes every post of the WordPress feed, not one per link path', () => {
    expect(fromFeed.map((article) => [article.slug, article.publishedAt])).toEqual([
      [`${TITLE_SLUG}-${guidHash('https://northern-dispatch.example/?p=6134')}`, '2026-11-20T16:40:00.000Z'],
      ['rail-strike-in-the-north-west-called-off', '2026-11-20T12:05:00.000Z'],
      [TITLE_SLUG, '2026-11-20T08:15:00.000Z'],
    ]);
    expect(fromFeed.some((article) => article.slug === 'north-west')).toBe(false);
  });

  it('tells namesakes apart: the earliest keeps the title slug, the later one adds a hash of its guid, and a note says so', () => {
    expect(derived.notes).toEqual([
      {
        source: FEED,
        message: `item 1: slug "${TITLE_SLUG}" is already taken by ${FEED} (item 3); published as "${TITLE_SLUG}-${guidHash('https://northern-dispatch.example/?p=6134')}" (the title's slug and a hash of the item's guid)`,
      },
    ]);
  });

  it('rejects a post listed twice by its guid, naming the copy kept', () => {
    expect(derived.rejections.filter((r) => r.source === FEED)).toEqual([
      {
        source: FEED,
        location: 'item 4',
        reason: `duplicate feed item "https://northern-dispatch.example/?p=6135" of source northern-dispatch: kept the item from ${FEED} (item 2)`,
      },
    ]);
  });

  it('gives every post the same slug on a rebuild, whatever the order of the items', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'pdsnap-feed-order-'));
    roots.push(root);
    await cp(REAL_WORLD, root, { recursive: true });
    const feedPath = path.join(root, FEED);
    const xml = await readFile(feedPath, 'utf8');
    const items = xml.match(/\t<item>[\s\S]*?<\/item>\n/g)!;
    expect(items).toHaveLength(4);
    await writeFile(feedPath, xml.replace(items.join(''), [...items].reverse().join('')));
    const again = await build(REAL_WORLD);
    const reversed = await build(root);
    const slugs = slugsByPost(derived.records);
    expect(slugsByPost(again.derived.records)).toEqual(slugs);
    expect(slugsByPost(reversed.derived.records)).toEqual(slugs);
    expect(slugs.get(`2026-11-20T08:15:00.000Z North West weather: flood warnings extended`)).toBe(TITLE_SLUG);
  });
});

describe('the locale of a Markdown article', async () => {
  const { ingested, derived } = await build(REAL_WORLD);
  const published = (slug: string) => derived.records.find((article) => article.slug === slug);
  const rejection = (file: string) => ingested.rejections.find((r) => r.source === `articles/${file}`);

  it('comes from the registered source when the front matter names none', () => {
    expect(published('sterling-slips-after-retail-sales')).toMatchObject({ locale: 'en-US', author: 'Priya Raman' });
    expect(rejection('en-US/2026-11-19-sterling-slips-after-retail-sales.md')).toBeUndefined();
  });

  it('comes from the folder (articles/en-US/) when neither the front matter nor a source gives one', () => {
    expect(published('port-volumes-recover')).toMatchObject({ locale: 'en-US', category: 'trade' });
    expect(rejection('en-US/2026-11-18-port-volumes-recover.md')).toBeUndefined();
  });

  it('rejects a front matter locale that contradicts its folder, naming both', () => {
    expect(rejection('ko-KR/2026-11-16-won-steadies.md')).toEqual({
      source: 'articles/ko-KR/2026-11-16-won-steadies.md',
      location: 'front matter',
      reason: 'locale contradiction: front matter says en-US but the folder articles/ko-KR/ says ko-KR',
    });
  });

  it('rejects a folder that contradicts the source when the front matter names no locale, naming both', () => {
    expect(rejection('en-US/2026-11-17-exports-rise.md')?.reason).toBe(
      'locale contradiction: the folder articles/en-US/ says en-US but source "hanbit-economy" is registered as ko-KR; write the locale in front matter',
    );
  });
});

function guidHash(guid: string): string {
  return createHash('sha256').update(`northern-dispatch\n${guid}`).digest('hex').slice(0, 8);
}
