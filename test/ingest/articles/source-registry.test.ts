import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ArticleDraft } from '../../../src/ingest/articles/article-draft.js';
import { finaliseDraft } from '../../../src/ingest/articles/finalise-article.js';
import { resolveRights } from '../../../src/ingest/articles/rights-resolution.js';
import { EMPTY_REGISTRY, parseSourceRegistry } from '../../../src/ingest/articles/source-registry.js';
import { UnreadableSource } from '../../../src/ingest/source-files.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/articles');
const read = (relative: string) => readFile(path.join(FIXTURES, relative), 'utf8');

function draft(fields: Partial<ArticleDraft>): ArticleDraft {
  return { source: 'articles/x.md', location: 'front matter', categories: [], slugCandidates: [], html: '<p>x</p>', ...fields };
}

describe('source registry', () => {
  it('declares each licensed source with locale, rights, attribution, defaults and feed', async () => {
    const { registry, rejections } = parseSourceRegistry(await read('valid/articles/sources.yaml'), 'articles/sources.yaml');
    expect(rejections).toEqual([]);
    expect([...registry.byId.keys()]).toEqual(['harbor-wire', 'hanbit-economy', 'sakura-markets', 'pdsnap-desk']);
    expect(registry.byId.get('hanbit-economy')).toMatchObject({
      locale: 'ko-KR',
      rights: { license: 'CC BY 4.0', reuse: 'free' },
      defaults: { category: 'economy' },
      feed: { path: 'feeds/hanbit-atom.xml' },
    });
  });

  it('refuses a registry that is not valid YAML as unreadable, naming the file and the line (the dataset fails)', async () => {
    const text = await read('registry/broken-sources.yaml');
    let thrown: unknown;
    try {
      parseSourceRegistry(text, 'articles/sources.yaml');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UnreadableSource);
    expect(thrown).toMatchObject({
      source: 'articles/sources.yaml',
      location: expect.stringMatching(/^line \d+$/),
      reason: expect.stringMatching(/^invalid YAML/),
    });
  });

  it('refuses a registry that expands a billion-laughs alias bomb', () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      ...'bcdefg'.split('').map((name, index) => `${name}: &${name} [${Array(9).fill(`*${'abcdef'[index]}`).join(',')}]`),
      'sources: []',
    ].join('\n');
    expect(() => parseSourceRegistry(bomb, 'articles/sources.yaml')).toThrow(/articles\/sources\.yaml.*alias/);
  });

  it('refuses a feed path that leaves articles/ and a non-http attribution link', async () => {
    const { registry, rejections } = parseSourceRegistry(await read('registry/feed-outside-folder.yaml'), 'articles/sources.yaml');
    expect(registry.byId.size).toBe(0);
    expect(rejections[0]!.location).toBe('sources[0] (sneaky), line 2');
    expect(rejections[0]!.reason).toMatch(/attribution\.url/);
    expect(rejections[0]!.reason).toMatch(/feed\.path: must be a path inside articles\//);
  });
});

describe('where pdsnap fetch gets a feed', () => {
  const registry = (feed: string) =>
    [
      'sources:',
      '  - id: harbor-wire',
      '    locale: en-US',
      '    rights: { license: L, holder: H, reuse: free }',
      '    attribution: { source: S, text: T }',
      `    feed: ${feed}`,
    ].join('\n');

  it('takes an http(s) url and headers whose values may name environment variables', () => {
    const { registry: read, rejections } = parseSourceRegistry(
      registry(
        '{ path: feeds/hw.xml, url: "https://feeds.harborwire.example/rss", headers: { Authorization: "Bearer $' +
          '{HARBOR_WIRE_TOKEN}" } }',
      ),
      'articles/sources.yaml',
    );
    expect(rejections).toEqual([]);
    expect(read.byId.get('harbor-wire')!.feed).toEqual({
      path: 'feeds/hw.xml',
      url: 'https://feeds.harborwire.example/rss',
      headers: { Authorization: 'Bearer $' + '{HARBOR_WIRE_TOKEN}' },
    });
  });

  it.each([
    ['{ path: feeds/hw.xml, url: "ftp://feeds.example/rss" }', /feed\.url: must be an http:\/\/ or https:\/\/ address/],
    ['{ path: feeds/hw.xml, url: "https://user:pw@feeds.example/rss" }', /must not carry a user name or password/],
    ['{ path: feeds/hw.xml, url: "https://feeds.example/rss", headers: { Host: x } }', /is set by pdsnap itself/],
    ['{ path: feeds/hw.xml, url: "https://feeds.example/rss", headers: { "Bad Name": x } }', /is not an HTTP header name/],
    ['{ path: feeds/hw.xml, headers: { Authorization: x } }', /headers are sent to feed\.url: give url too/],
  ])('rejects the source for %s', (feed, reason) => {
    const { rejections } = parseSourceRegistry(registry(feed), 'articles/sources.yaml');
    expect(rejections).toEqual([expect.objectContaining({ reason: expect.stringMatching(reason) })]);
  });
});

describe('rights resolution', () => {
  it('names an unavailable registry when a source id cannot be looked up', async () => {
    const resolution = resolveRights(draft({ sourceId: 'harbor-wire' }), EMPTY_REGISTRY);
    expect(resolution).toEqual({ ok: false, reason: 'unknown source "harbor-wire": articles/sources.yaml is missing or invalid' });
  });

  it('lets a complete written block replace the registry block as a whole', async () => {
    const { registry } = parseSourceRegistry(await read('valid/articles/sources.yaml'), 'articles/sources.yaml');
    const resolution = resolveRights(
      draft({ sourceId: 'harbor-wire', attribution: { source: 'Guest Column', text: 'By a guest columnist' } }),
      registry,
    );
    expect(resolution).toMatchObject({
      ok: true,
      rights: { holder: 'Harbor Wire Media LLC' },
      attribution: { source: 'Guest Column', text: 'By a guest columnist' },
    });
    expect(resolution.ok && resolution.attribution.url).toBeUndefined();
  });

  it('never completes a partial written block from the registry', async () => {
    const { registry } = parseSourceRegistry(await read('valid/articles/sources.yaml'), 'articles/sources.yaml');
    const resolution = resolveRights(draft({ sourceId: 'harbor-wire', rights: { license: 'CC BY 4.0' } }), registry);
    expect(resolution.ok).toBe(false);
    expect(!resolution.ok && resolution.reason).toMatch(/incomplete rights: rights\.holder.*rights\.reuse/);
  });

  it('rejects an article with neither a source nor written rights', () => {
    const resolution = resolveRights(draft({}), { byId: new Map(), available: true });
    expect(resolution.ok).toBe(false);
  });
});

describe('text from the registry', () => {
  it('rejects an article whose registry attribution holds a NUL character: nothing with one is published', async () => {
    const text = (await read('valid/articles/sources.yaml')).replace('text: "© 2026 Harbor Wire', 'text: "\\0© 2026 Harbor Wire');
    const { registry } = parseSourceRegistry(text, 'articles/sources.yaml');
    const outcome = finaliseDraft(
      draft({ sourceId: 'harbor-wire', title: 'T', date: '2026-11-20', author: 'A', categories: ['markets'] }),
      registry,
    );
    expect(outcome.rejection).toEqual({
      source: 'articles/x.md',
      location: 'front matter',
      reason: 'attribution.text contains a NUL character (U+0000)',
    });
  });
});
