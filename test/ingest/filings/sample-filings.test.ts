import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listFiles } from '../../../src/ingest/source-files.js';
import { ingestFilings } from '../../../src/ingest/filings/index.js';
import { cusipWithCheckDigit, writeSampleFilings } from '../../../src/sample/filings.js';
import { reportQuarters } from '../../../src/lib/quarters.js';
import { writeForm13fDataset } from '../../../src/sample/form13f-dataset.js';
import { SILENT_PROGRESS } from '../../../src/model/progress.js';

const NOW = new Date('2026-11-22T09:00:00.000Z');
const roots: string[] = [];
const tempRoot = async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'pdsnap-sample-filings-'));
  roots.push(root);
  return root;
};
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function treeDigest(root: string): Promise<string> {
  const hash = createHash('sha256');
  for (const file of await listFiles(root)) hash.update(path.relative(root, file)).update(await readFile(file));
  return hash.digest('hex');
}

describe('sample quarters', () => {
  it('picks the two latest quarters whose 45-day deadline has passed', () => {
    expect(reportQuarters(NOW)).toEqual(['2026-06-30', '2026-09-30']);
    expect(reportQuarters(new Date('2026-11-13T00:00:00Z'))).toEqual(['2026-03-31', '2026-06-30']);
    expect(reportQuarters(new Date('2026-02-20T00:00:00Z'))).toEqual(['2025-09-30', '2025-12-31']);
    // The deadline is a UTC day: 45 days after 2026-03-31 is 2026-05-15, whatever zone the machine is in
    // (the data sets of sample --scale once used a local-time day count, an hour off across a DST change).
    expect(reportQuarters(new Date('2026-05-15T00:30:00Z'))).toEqual(['2025-12-31', '2026-03-31']);
    expect(reportQuarters(new Date('2026-05-14T23:30:00Z'))).toEqual(['2025-09-30', '2025-12-31']);
  });

  it('makes CUSIPs with a correct check digit', () => {
    expect(cusipWithCheckDigit('03783310')).toBe('037833100'); // a published CUSIP, to check the algorithm
    expect(cusipWithCheckDigit('512347AB')).toBe('512347AB1');
  });
});

describe('writeSampleFilings', async () => {
  const root = await tempRoot();
  await writeSampleFilings(root, NOW);
  const result = await ingestFilings(root, SILENT_PROGRESS);
  const metas = [...result.catalog.filings()];

  it('writes the same bytes for the same now', async () => {
    const again = await tempRoot();
    await writeSampleFilings(again, NOW);
    expect(await treeDigest(again)).toBe(await treeDigest(root));
  });

  it('ingests without a single rejection, over two quarters, with a registry', () => {
    expect(result.rejections).toEqual([]);
    expect(new Set(metas.map((meta) => meta.period))).toEqual(new Set(['2026-06-30', '2026-09-30']));
    expect(metas.every((meta) => meta.filedAt <= '2026-11-22')).toBe(true);
    expect(new Set(metas.map((meta) => meta.cik)).size).toBeGreaterThanOrEqual(24);
    expect(result.registry!.length).toBeGreaterThanOrEqual(20);
  });

  it('includes the real-world cases: amendments, a notice, full submissions, options and PRN rows', async () => {
    const amendments = metas.map((meta) => meta.amendmentType).filter(Boolean);
    expect(amendments.sort()).toEqual(['NEW HOLDINGS', 'RESTATEMENT']);
    expect(metas.filter((meta) => meta.submissionType === '13F-NT').length).toBeGreaterThan(0);
    expect(metas.filter((meta) => meta.source.endsWith('.txt')).length).toBeGreaterThan(0);
    const rows = metas.flatMap((meta) => result.catalog.rows(meta.accessionNumber));
    expect(rows.some((row) => row.putCall === 'put')).toBe(true);
    expect(rows.some((row) => row.putCall === 'call')).toBe(true);
    expect(rows.some((row) => row.amountType === 'PRN')).toBe(true);
    const prefixed = (await listFiles(root)).filter((file) => file.endsWith('infotable.xml'));
    const texts = await Promise.all(prefixed.map((file) => readFile(file, 'utf8')));
    expect(texts.some((text) => text.includes('<ns1:informationTable'))).toBe(true);
    expect(texts.some((text) => text.startsWith('\n<?xml'))).toBe(true);
  });

  it('changes positions between the quarters: some sold, some new, some resized, some unchanged', () => {
    const holder = metas.find((meta) => meta.cik === metas[0]!.cik && meta.period === '2026-09-30' && meta.amendmentType === null)!;
    const before = metas.find((meta) => meta.cik === holder.cik && meta.period === '2026-06-30')!;
    const shares = (accession: string) =>
      new Map(
        result.catalog
          .rows(accession)
          .filter((row) => row.putCall === null && row.amountType === 'SH')
          .map((row) => [row.cusip, row.amount]),
      );
    const previous = shares(before.accessionNumber);
    const latest = shares(holder.accessionNumber);
    const kept = [...latest.keys()].filter((cusip) => previous.has(cusip));
    expect([...previous.keys()].some((cusip) => !latest.has(cusip))).toBe(true);
    expect([...latest.keys()].some((cusip) => !previous.has(cusip))).toBe(true);
    expect(kept.some((cusip) => latest.get(cusip)! > previous.get(cusip)!)).toBe(true);
    expect(kept.some((cusip) => latest.get(cusip) === previous.get(cusip))).toBe(true);
  });
});

describe('writeForm13fDataset', async () => {
  const root = await tempRoot();
  const datasets = path.join(root, 'filings/datasets');
  const q2 = await writeForm13fDataset(path.join(datasets, 'form13f-2026-06-30.zip'), { period: '2026-06-30', filers: 60, seed: 13 });
  const q3 = await writeForm13fDataset(path.join(datasets, 'form13f-2026-09-30.zip'), { period: '2026-09-30', filers: 60, seed: 13 });
  const result = await ingestFilings(root, SILENT_PROGRESS);
  const metas = [...result.catalog.filings()];

  it('writes a data set that ingests cleanly, with the row count it reports', () => {
    expect(result.rejections).toEqual([]);
    expect(result.catalog.rowCount).toBe(q2.rows + q3.rows);
    expect(q2.rows / 60).toBeGreaterThan(100);
    expect(metas.filter((meta) => meta.period === '2026-09-30')).toHaveLength(60);
    expect(metas.every((meta) => meta.filedAt > meta.period && meta.filedAt <= '2026-11-14')).toBe(true);
  });

  it('is deterministic for the same seed and period', async () => {
    const again = path.join(await tempRoot(), 'again.zip');
    await writeForm13fDataset(again, { period: '2026-06-30', filers: 60, seed: 13 });
    const digest = async (file: string) =>
      createHash('sha256')
        .update(await readFile(file))
        .digest('hex');
    expect(await digest(again)).toBe(await digest(path.join(datasets, 'form13f-2026-06-30.zip')));
  });

  it('relates adjacent quarters: most positions kept, some exits and entries, many share counts changed', () => {
    let kept = 0;
    let exited = 0;
    let entered = 0;
    let changed = 0;
    const byCik = new Map<string, string[]>();
    for (const meta of metas) byCik.set(meta.cik, [...(byCik.get(meta.cik) ?? []), meta.accessionNumber]);
    for (const [first, second] of byCik.values()) {
      const key = (row: { cusip: string; putCall: string | null; amountType: string }) => `${row.cusip}/${row.putCall}/${row.amountType}`;
      const sum = (accession: string) => {
        const totals = new Map<string, number>();
        for (const row of result.catalog.rows(accession)) totals.set(key(row), (totals.get(key(row)) ?? 0) + row.amount);
        return totals;
      };
      const before = sum(first!);
      const after = sum(second!);
      for (const [position, amount] of after) {
        if (!before.has(position)) entered++;
        else {
          kept++;
          if (before.get(position) !== amount) changed++;
        }
      }
      for (const position of before.keys()) if (!after.has(position)) exited++;
    }
    expect(kept).toBeGreaterThan(4 * (exited + entered));
    expect(exited).toBeGreaterThan(0);
    expect(entered).toBeGreaterThan(0);
    expect(changed / kept).toBeGreaterThan(0.4);
    expect(changed).toBeLessThan(kept);
  });
});
