import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveArticles } from '../../../src/derive/articles.js';
import { ingestArticles } from '../../../src/ingest/articles/index.js';
import { listFiles } from '../../../src/ingest/source-files.js';
import { LOCALES } from '../../../src/model/article.js';
import { writeSampleArticles } from '../../../src/sample/articles.js';

const NOW = new Date('2026-11-22T10:17:33.123Z');
const HOUR = 3_600_000;

describe('writeSampleArticles', () => {
  let first: string;
  let second: string;
  beforeAll(async () => {
    first = await mkdtemp(path.join(tmpdir(), 'pdsnap-sample-a-'));
    second = await mkdtemp(path.join(tmpdir(), 'pdsnap-sample-b-'));
    await writeSampleArticles(first, NOW);
    await writeSampleArticles(second, new Date(NOW.getTime()));
  });
  afterAll(async () => {
    await rm(first, { recursive: true, force: true });
    await rm(second, { recursive: true, force: true });
  });

  it('writes byte-identical files for the same now', async () => {
    const filesA = (await listFiles(path.join(first, 'articles'))).map((f) => path.relative(first, f));
    const filesB = (await listFiles(path.join(second, 'articles'))).map((f) => path.relative(second, f));
    expect(filesA).toEqual(filesB);
    expect(filesA.length).toBeGreaterThanOrEqual(18);
    for (const file of filesA) {
      expect((await readFile(path.join(second, file))).equals(await readFile(path.join(first, file))), file).toBe(true);
    }
  });

  it('ingests with zero rejections: every format, every locale, the snapshot excluded', async () => {
    const result = await ingestArticles(first);
    expect(result.rejections).toEqual([]);
    expect(result.notes).toEqual([
      {
        source: expect.stringMatching(/^articles\/en-US\/.*-closing-snapshot\.md$/),
        message: 'front matter: provider market snapshot excluded',
      },
    ]);
    const sources = new Set(result.records.map((entry) => entry.source));
    for (const feed of [
      'articles/feeds/harbor-wire.xml',
      'articles/feeds/hanbit-economy.atom',
      'articles/feeds/sakura-markets.json',
      'articles/json/desk-briefs.json',
    ]) {
      expect(sources.has(feed), feed).toBe(true);
    }
    const { records, rejections } = deriveArticles(result.records, NOW);
    expect(rejections).toEqual([]);
    expect(new Set(records.map((r) => r.locale))).toEqual(new Set(LOCALES));
    for (const category of ['markets', 'economy', 'policy', 'technology'])
      expect(
        records.some((r) => r.category === category),
        category,
      ).toBe(true);
  });

  it('dates the newest article a few hours before now and the oldest a few weeks back', async () => {
    const { facts, records } = deriveArticles((await ingestArticles(first)).records, NOW);
    const newestAge = NOW.getTime() - Date.parse(facts.latestPublishedAt!);
    expect(newestAge).toBeGreaterThan(0);
    expect(newestAge).toBeLessThan(6 * HOUR);
    const oldestAge = NOW.getTime() - Date.parse(records.at(-1)!.publishedAt);
    expect(oldestAge).toBeGreaterThan(14 * 24 * HOUR);
    expect(oldestAge).toBeLessThan(35 * 24 * HOUR);
  });

  it('moves every date with now', async () => {
    const later = await mkdtemp(path.join(tmpdir(), 'pdsnap-sample-c-'));
    try {
      await writeSampleArticles(later, new Date(NOW.getTime() + 30 * 24 * HOUR));
      const { facts } = deriveArticles((await ingestArticles(later)).records, new Date(NOW.getTime() + 30 * 24 * HOUR));
      const { facts: base } = deriveArticles((await ingestArticles(first)).records, NOW);
      expect(Date.parse(facts.latestPublishedAt!) - Date.parse(base.latestPublishedAt!)).toBe(30 * 24 * HOUR);
    } finally {
      await rm(later, { recursive: true, force: true });
    }
  });
});
