import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  baseline,
  buildCase,
  expectBoundedMemory,
  MARKER,
  MiB,
  newNotes,
  newRejections,
  published,
  storeContains,
  type HostileBuild,
} from '../helpers/hostile.js';

/**
 * One hostile article source at a time, planted into the committed sample and built with the real
 * CLI: nothing runs or is expanded, the other files' articles are all published, the bad file is
 * named with its location and reason, and time (the build's timeout) and memory stay bounded.
 */

let sample: HostileBuild;
beforeAll(async () => {
  sample = await baseline('articles');
  expect(sample.records).toBeGreaterThan(10);
});

/** Every other article published, nothing expanded into the store, memory bounded. */
async function expectOthersPublished(build: HostileBuild, extra = 0): Promise<void> {
  expect(build.exitCode, build.stderr).toBe(0);
  expect(build.dataset.outcome).toBe('published');
  expect(build.records).toBe(sample.records + extra);
  expect(await storeContains(build.store, MARKER)).toBe(false);
  expect(await storeContains(build.store, 'root:')).toBe(false);
}

describe('XML entities and DOCTYPEs in a feed', () => {
  it('rejects a feed declaring an external entity at the declaration line, resolving nothing', async () => {
    const build = await buildCase('feed-external-entity');
    await expectOthersPublished(build);
    expect(await newRejections(build, 'articles')).toEqual([
      { source: 'articles/feeds/hostile.xml', location: 'line 3', reason: 'entity declarations are not allowed' },
    ]);
  });

  it('refuses an internal entity like any entity declaration: its text is never published', async () => {
    const build = await buildCase('feed-internal-entity', 'measured');
    await expectOthersPublished(build);
    expectBoundedMemory(build);
    expect(await newRejections(build, 'articles')).toEqual([
      { source: 'articles/feeds/hostile.xml', location: 'line 2', reason: 'entity declarations are not allowed' },
    ]);
  });

  it('ignores a bare DOCTYPE (RSS 0.91) and publishes its items', async () => {
    const build = await buildCase('feed-bare-doctype');
    await expectOthersPublished(build, 2);
    expect(await newRejections(build, 'articles')).toEqual([]);
  });

  it('rejects a feed nested 50,000 deep with the depth limit, naming its line', async () => {
    const build = await buildCase('feed-deep-nesting', 'measured');
    await expectOthersPublished(build);
    expectBoundedMemory(build);
    expect(await newRejections(build, 'articles')).toEqual([
      { source: 'articles/feeds/hostile.xml', location: 'line 5', reason: 'elements nested deeper than 100 levels' },
    ]);
  });
});

describe('encodings', () => {
  it('refuses gzip bytes named .xml as not text', async () => {
    const build = await buildCase('feed-gzip-named-xml');
    await expectOthersPublished(build);
    expect(await newRejections(build, 'articles')).toEqual([
      { source: 'articles/feeds/hostile.xml', location: 'file', reason: 'gzip-compressed data, not text: decompress the file first' },
    ]);
  });

  it('reads a UTF-16 feed with a byte-order mark', async () => {
    const build = await buildCase('feed-utf16');
    await expectOthersPublished(build, 2);
    expect(await newRejections(build, 'articles')).toEqual([]);
  });

  it('reads a Markdown article that starts with a UTF-8 byte-order mark', async () => {
    const build = await buildCase('markdown-bom');
    await expectOthersPublished(build, 1);
    expect(await newRejections(build, 'articles')).toEqual([]);
  });

  it('publishes an article with invalid UTF-8 with U+FFFD, and a note naming the byte offset', async () => {
    const build = await buildCase('markdown-invalid-utf8');
    await expectOthersPublished(build, 1);
    expect(await newNotes(build, 'articles')).toEqual([
      {
        source: 'articles/en-US/2026-11-20-bad-bytes.md',
        message: expect.stringMatching(/^invalid UTF-8 at byte offset \d+, read as U\+FFFD$/),
      },
    ]);
  });

  it('normalises CRLF front matter: the last field keeps no carriage return', async () => {
    const build = await buildCase('markdown-crlf');
    await expectOthersPublished(build, 1);
    const { records } = await published(build.store, 'articles', 'articles');
    const article = (records as { title: string; author: string }[]).find((a) => a.title === 'Windows line ends');
    expect(article?.author).toBe('Carriage Return');
  });
});

describe('text that must not be published', () => {
  it('rejects a Markdown article holding a NUL byte, naming the line', async () => {
    const build = await buildCase('markdown-nul');
    await expectOthersPublished(build);
    expect(await newRejections(build, 'articles')).toEqual([
      { source: 'articles/en-US/2026-11-20-nul.md', location: 'line 5', reason: 'the article contains a NUL character (U+0000)' },
    ]);
  });

  it('rejects a JSON article whose title holds a NUL escape, naming the field', async () => {
    const build = await buildCase('json-article-nul');
    await expectOthersPublished(build);
    expect(await newRejections(build, 'articles')).toEqual([
      { source: 'articles/json/nul.json', location: 'record 1', reason: 'title contains a NUL character (U+0000)' },
    ]);
  });

  it('rejects a year written 0026 instead of publishing 1926', async () => {
    const build = await buildCase('markdown-year-0026');
    await expectOthersPublished(build);
    expect(await newRejections(build, 'articles')).toEqual([
      { source: 'articles/en-US/year-typo.md', location: 'front matter', reason: 'year 26 is outside 1900-2199 in date "0026-11-21"' },
    ]);
  });

  it('rejects a JSON article with a key written twice, naming the line', async () => {
    const build = await buildCase('json-duplicate-keys');
    await expectOthersPublished(build);
    expect(await newRejections(build, 'articles')).toEqual([
      { source: 'articles/json/duplicate.json', location: 'line 6', reason: 'invalid JSON: duplicate key "title" in one object' },
    ]);
  });

  it('rejects a number with 400 digits instead of publishing Infinity', async () => {
    const build = await buildCase('json-400-digit-number');
    await expectOthersPublished(build);
    expect(await newRejections(build, 'articles')).toEqual([
      {
        source: 'articles/json/huge-number.json',
        location: 'line 1',
        reason: 'invalid JSON: number 99999999999999999999… (400 characters) is out of range',
      },
    ]);
  });
});

describe('the registry', () => {
  it('fails the dataset, naming articles/sources.yaml, when it holds an alias bomb', async () => {
    const build = await buildCase('sources-yaml-alias-bomb', 'measured');
    expect(build.exitCode).toBe(2);
    expect(build.dataset.outcome).toBe('failed');
    expect(build.dataset.reason).toBe(
      'could not read sources: articles/sources.yaml, document: invalid YAML: more than 100 alias expansions (a "billion laughs" document is refused, not expanded)',
    );
    expectBoundedMemory(build);
    expect(await readdir(build.store)).not.toContain('bundles');
  });
});

describe('files that are not plain files', () => {
  it('follows a symlinked article, naming the resolved path in a note and in the manifest', async () => {
    const build = await buildCase('markdown-symlink-file');
    await expectOthersPublished(build, 1);
    const target = path.join(build.outside, 'linked-article.md');
    expect(await newNotes(build, 'articles')).toContainEqual({
      source: 'articles/en-US/2026-11-20-linked-article.md',
      message: `symlink followed to ${target}`,
    });
    const { manifest } = await published(build.store, 'articles', 'articles');
    expect(manifest.sources).toContainEqual(
      expect.objectContaining({ path: 'articles/en-US/2026-11-20-linked-article.md', resolvedPath: target }),
    );
  });

  it('follows a symlinked locale folder (articles/en-US) and reports it', async () => {
    const build = await buildCase('articles-symlink-locale-folder');
    await expectOthersPublished(build);
    expect(await newNotes(build, 'articles')).toContainEqual({
      source: 'articles/en-US',
      message: `symlink followed to ${path.join(build.outside, 'en-US')}`,
    });
    const { manifest } = await published(build.store, 'articles', 'articles');
    const linked = manifest.sources.filter((source) => source.path.startsWith('articles/en-US/'));
    expect(linked.length).toBeGreaterThan(0);
    for (const source of linked) expect(source.resolvedPath).toBe(path.join(build.outside, source.path.slice('articles/'.length)));
  });

  it('does not follow a symlink loop twice, and says so', async () => {
    const build = await buildCase('articles-symlink-loop');
    await expectOthersPublished(build);
    expect(await newNotes(build, 'articles')).toContainEqual({
      source: 'articles/en-US/loop',
      message: 'folder not read again: it is articles, read already (a symlink loop or a second link)',
    });
  });

  it('refuses a FIFO with a note, never opening it (the build does not block)', async () => {
    // A process of its own, with its timeout: a build that opened the FIFO would block for good.
    const build = await buildCase('markdown-fifo', 'measured');
    await expectOthersPublished(build);
    expect(await newNotes(build, 'articles')).toEqual([
      { source: 'articles/en-US/2026-11-20-pipe.md', message: 'refused: a FIFO (named pipe) is not a regular file; it was not opened' },
    ]);
  });

  it('refuses a socket with a note', async () => {
    const build = await buildCase('markdown-socket');
    await expectOthersPublished(build);
    expect(await newNotes(build, 'articles')).toEqual([
      { source: 'articles/en-US/2026-11-20-socket.md', message: 'refused: a socket is not a regular file; it was not opened' },
    ]);
  });

  it('refuses a file above the size cap without reading it', async () => {
    const build = await buildCase('markdown-too-large', 'measured');
    await expectOthersPublished(build);
    expectBoundedMemory(build, 200 * MiB);
    expect(await newRejections(build, 'articles')).toEqual([
      {
        source: 'articles/en-US/2026-11-20-huge.md',
        location: 'file',
        reason: expect.stringMatching(/^\d+ bytes: larger than the 64 MiB a source file may be$/),
      },
    ]);
  });
});
