import { appendFile, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFetchLedger, withFetchProvenance } from '../../src/ingest/fetch-ledger.js';
import { readSidecar } from '../../src/ingest/calendar/sidecar.js';
import type { FetchLedgerEntry } from '../../src/model/fetch-ledger.js';
import { Manifest } from '../../src/model/manifest.js';

const entry = (sha: string, fetchedAt: string, bytes = 10): FetchLedgerEntry => ({
  path: 'articles/feeds/hw.xml',
  url: 'https://feeds.example/hw.xml',
  fetchedAt,
  status: 200,
  bytes,
  sha256: sha.repeat(64),
});

describe("the fetch ledger, as build reads it for the manifest's sources", () => {
  it('names the address of a file whose bytes are the ones fetched, the newest such entry', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'pdsnap-ledger-'));
    const lines = [entry('a', '2026-11-20T00:00:00.000Z'), entry('b', '2026-11-21T00:00:00.000Z'), entry('a', '2026-11-22T00:00:00.000Z')];
    await writeFile(path.join(root, 'fetch-ledger.ndjson'), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    // The torn last line of a run killed while appending is skipped.
    await appendFile(path.join(root, 'fetch-ledger.ndjson'), '{"path":"articles/feeds/hw.xml","url":"https://fee');
    const ledger = await readFetchLedger(root);
    const sources = withFetchProvenance(
      [
        { path: 'articles/feeds/hw.xml', bytes: 10, sha256: 'a'.repeat(64) },
        { path: 'articles/sources.yaml', bytes: 10, sha256: 'a'.repeat(64) },
      ],
      ledger,
    );
    expect(sources).toEqual([
      {
        path: 'articles/feeds/hw.xml',
        bytes: 10,
        sha256: 'a'.repeat(64),
        url: 'https://feeds.example/hw.xml',
        fetchedAt: '2026-11-22T00:00:00.000Z',
      },
      { path: 'articles/sources.yaml', bytes: 10, sha256: 'a'.repeat(64) },
    ]);
  });

  it('names nothing for a file changed by hand since it was fetched, nor without a ledger', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'pdsnap-ledger-'));
    expect((await readFetchLedger(root)).size).toBe(0);
    await writeFile(path.join(root, 'fetch-ledger.ndjson'), `${JSON.stringify(entry('a', '2026-11-20T00:00:00.000Z'))}\n`);
    const edited = { path: 'articles/feeds/hw.xml', bytes: 11, sha256: 'c'.repeat(64) };
    expect(withFetchProvenance([edited], await readFetchLedger(root))).toEqual([edited]);
  });

  it('keeps manifests written before fetch existed valid, and takes the new fields', () => {
    const manifest = {
      format: 3,
      dataset: 'articles',
      snapshotId: 'articles-20261122T120000Z-0123456789ab',
      generatedAt: '2026-11-22T12:00:00.000Z',
      facts: { generatedAt: '2026-11-22T12:00:00.000Z', latestPublishedAt: '2026-11-21T12:00:00.000Z' },
      freshUntil: '2026-11-28T12:00:00.000Z',
      allowStale: false,
      sources: [{ path: 'articles/a.md', bytes: 1, sha256: 'a'.repeat(64) }],
      files: [{ path: 'articles/00000.ndjson', bytes: 1, sha256: 'b'.repeat(64), records: 1 }],
    };
    expect(Manifest.safeParse(manifest).success).toBe(true);
    const fetched = {
      ...manifest,
      sources: [{ ...manifest.sources[0], url: 'https://feeds.example/a', fetchedAt: '2026-11-22T11:00:00.000Z' }],
    };
    expect(Manifest.safeParse(fetched).success).toBe(true);
    expect(Manifest.safeParse({ ...manifest, sources: [{ ...manifest.sources[0], fetchedAt: 'yesterday' }] }).success).toBe(false);
  });
});

describe('a calendar sidecar that names its address', () => {
  const sidecar = ['format: provider-json', 'license: L', 'attribution: { source: S, text: T }', 'verifiedAt: 2026-11-21'];

  it('carries url and headers for fetch', () => {
    const read = readSidecar(
      [...sidecar, 'url: https://markets.example/export.json', 'headers: { X-Api-Key: "$' + '{MARKETS_KEY}" }'].join('\n'),
      'x.json.meta.yaml',
    );
    expect(read.fetch).toEqual({ url: 'https://markets.example/export.json', headers: { 'X-Api-Key': '$' + '{MARKETS_KEY}' } });
    expect(readSidecar(sidecar.join('\n'), 'x.json.meta.yaml').fetch).toBeUndefined();
  });

  it('refuses headers without url, and a url that is no http(s) address', () => {
    expect(() => readSidecar([...sidecar, 'headers: { X-Api-Key: k }'].join('\n'), 'x.json.meta.yaml')).toThrow(/headers are sent to url/);
    expect(() => readSidecar([...sidecar, 'url: file:///etc/passwd'].join('\n'), 'x.json.meta.yaml')).toThrow(/http:\/\/ or https:\/\//);
  });
});
