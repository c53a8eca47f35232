import { cp, readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FolderStore } from '../../src/publish/folder-store.js';
import { locateSecurityIdentifiers } from '../../src/model/security-identifiers.js';
import { readResourceRecords } from '../../src/publish/record-reader.js';
import { REPO_ROOT, runCli, tempDir } from '../helpers/cli.js';

/**
 * The real-world fixtures end to end, through the built CLI: filings whose names carry
 * identifiers and whose cover page totals disagree, a WordPress feed with namesake posts, and
 * Markdown posts in locale folders. What each decision looks like in the build report and the
 * manifest, and what --strict does.
 */
const NOW = '2026-11-22T00:00:00.000Z';

interface DatasetReport {
  dataset: string;
  outcome: string;
  snapshotId: string | null;
  rejected: { source: string; location: string; reason: string }[];
  notes: { source: string; message: string }[];
  reason: string | null;
}

/** A published bundle: its manifest, every byte of its record parts, and a reader of one resource's records. */
async function openBundle(store: string, _dataset: string, snapshotId: string) {
  const { manifest, locate } = await new FolderStore(store).openBundle(snapshotId);
  const text = (await Promise.all(manifest.files.map((file) => readFile(locate(file), 'utf8')))).join('\n');
  const records = async (resource: string) => {
    const out: unknown[] = [];
    for await (const record of readResourceRecords(manifest, locate, resource)) out.push(record);
    return out;
  };
  return { manifest, text, records };
}

async function build(sources: string, extra: string[] = []) {
  const store = await tempDir('real-world-store');
  const result = await runCli([
    'build',
    '--sources',
    sources,
    '--store',
    store,
    '--now',
    NOW,
    '--json',
    '--datasets',
    'articles,smart-money',
    ...extra,
  ]);
  const report = JSON.parse(String(result.stdout)) as { datasets: DatasetReport[] };
  const dataset = (name: string) => report.datasets.find((d) => d.dataset === name)!;
  return { result, store, dataset };
}

describe('pdsnap build on real-world sources', () => {
  let sources: string;
  beforeAll(async () => {
    sources = await tempDir('real-world-sources');
    await cp(path.join(REPO_ROOT, 'test/fixtures/filings/real-world/filings'), path.join(sources, 'filings'), { recursive: true });
    await cp(path.join(REPO_ROOT, 'test/fixtures/articles/real-world/articles'), path.join(sources, 'articles'), { recursive: true });
  });

  it('publishes Smart Money without an identifier in any name, and counts the disagreeing totals in the manifest', async () => {
    const { result, store, dataset } = await build(sources);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    const smartMoney = dataset('smart-money');
    expect(smartMoney).toMatchObject({ outcome: 'published', rejected: [] });
    const bundle = await openBundle(store, 'smart-money', smartMoney.snapshotId!);
    expect(bundle.manifest.facts.filingsWithDisagreeingTotals).toBe(2);
    expect(bundle.text.length).toBeGreaterThan(1000);
    expect(locateSecurityIdentifiers(bundle.text)).toEqual([]);
    const investors = (await bundle.records('investors')) as { positions: { issuerName: string }[] }[];
    const issuers = new Set(investors.flatMap((investor) => investor.positions.map((p) => p.issuerName)));
    expect([...issuers]).toEqual(expect.arrayContaining(['WPP PLC NEW ADR', 'APPLE INC', 'MICROSOFT CORP', 'ISHARES TR CORE S&P500 ETF']));
    // Every decision is in the report: each name change once, each disagreement, and the count.
    const messages = smartMoney.notes.map((note) => note.message);
    expect(messages.filter((m) => m.includes('removed, never published'))).toHaveLength(6);
    expect(messages.filter((m) => m.includes('published from the information table (--strict rejects it)'))).toHaveLength(2);
    expect(messages).toContain(
      'cover page totals: 2 filing(s) disagree with their information table and were published from the table (noted above)',
    );
  });

  it('passes validate, whose content rule would catch an identifier glued to a name', async () => {
    const { store } = await build(sources);
    const validate = await runCli(['validate', '--store', store, '--now', NOW, '--json']);
    const report = JSON.parse(String(validate.stdout)) as { datasets: { dataset: string; rules: { rule: string; status: string }[] }[] };
    for (const dataset of ['articles', 'smart-money']) {
      const rules = report.datasets.find((d) => d.dataset === dataset)!.rules;
      expect(
        rules.find((r) => r.rule === 'content.identifiers'),
        dataset,
      ).toMatchObject({ status: 'pass' });
    }
  });

  it('under --strict, fails Smart Money for the disagreeing totals and publishes none of it', async () => {
    const { result, store, dataset } = await build(sources, ['--strict']);
    expect(result.exitCode).toBe(2);
    const smartMoney = dataset('smart-money');
    expect(smartMoney.outcome).toBe('failed');
    expect(smartMoney.reason).toMatch(/^--strict: 2 source record\(s\) rejected/);
    expect(smartMoney.rejected.map((r) => r.reason)).toEqual([
      "filing 0001614000-26-000052 rejected: cover page tableValueTotal is 86460000 but the information table's values sum to 68460000 (--strict)",
      'filing 0001615000-26-000053 rejected: cover page tableEntryTotal is 4 but the information table has 3 rows (--strict)',
    ]);
    await expect(readdir(path.join(store, 'bundles/smart-money'))).rejects.toThrow();
  });

  it('publishes every post of the WordPress feed, notes the namesake slug, and names both values of a locale contradiction', async () => {
    const { store, dataset } = await build(sources);
    const articles = dataset('articles');
    expect(articles.outcome).toBe('published');
    const bundle = await openBundle(store, 'articles', articles.snapshotId!);
    const published = (await bundle.records('articles')) as { slug: string; locale: string }[];
    expect(published.map((a) => a.slug)).toEqual([
      expect.stringMatching(/^north-west-weather-flood-warnings-extended-[0-9a-f]{8}$/),
      'rail-strike-in-the-north-west-called-off',
      'north-west-weather-flood-warnings-extended',
      'sterling-slips-after-retail-sales',
      'port-volumes-recover',
    ]);
    expect(articles.notes.map((n) => n.message)).toContainEqual(
      expect.stringMatching(/^item 1: slug "north-west-weather-flood-warnings-extended" is already taken by/),
    );
    expect(articles.rejected.map((r) => r.reason).sort()).toEqual([
      'duplicate feed item "https://northern-dispatch.example/?p=6135" of source northern-dispatch: kept the item from articles/feeds/northern-dispatch.xml (item 2)',
      'locale contradiction: front matter says en-US but the folder articles/ko-KR/ says ko-KR',
      'locale contradiction: the folder articles/en-US/ says en-US but source "hanbit-economy" is registered as ko-KR; write the locale in front matter',
    ]);
  });
});
