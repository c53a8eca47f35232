import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { DatasetName } from '../../src/model/dataset.js';
import type { FreshnessFacts } from '../../src/model/freshness.js';
import { FolderStore } from '../../src/publish/folder-store.js';
import { DEFAULT_LIMITS, freshUntil } from '../../src/validate/freshness.js';
import type { ValidationReport } from '../../src/validate/report.js';
import { bundleFilePath } from '../helpers/bundle-file.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { article, calendarEvent } from '../helpers/records.js';
import { consensusRow, investor, trade } from '../validate/records.js';

const NOW = '2026-11-22T12:00:00.000Z';
const GEN = '2026-11-20T00:00:00.000Z';

const RECORDS: Record<DatasetName, Record<string, unknown[]>> = {
  articles: { articles: [article('fed-holds-rates', '2026-11-19T00:00:00.000Z'), article('ecb-outlook', '2026-11-18T00:00:00.000Z')] },
  calendar: { events: [calendarEvent('evt-0123456789abcdef', '2026-12-10T13:30:00.000Z')] },
  'smart-money': {
    investors: [investor('example-capital')],
    consensus: [consensusRow(1), consensusRow(2)],
    trades: [trade('example-capital')],
  },
};

// articles: fresh until 2026-11-26T00:00Z (latest article + 7d); calendar: 2027-02-09T00:00Z
// (oldest verification + 100d); smart-money: 2026-12-04T00:00Z (generation + 14d).
const FRESH_FACTS: Record<DatasetName, FreshnessFacts> = {
  articles: { generatedAt: GEN, latestPublishedAt: '2026-11-19T00:00:00.000Z' },
  calendar: { generatedAt: GEN, oldestVerifiedAt: '2026-11-01T00:00:00.000Z', coverageThrough: '2027-01-31' },
  'smart-money': { generatedAt: GEN, oldestPeriod: '2026-09-30' },
};

/** Publishes one bundle through the real store, exactly as `build` does. */
async function publish(root: string, dataset: DatasetName, facts: FreshnessFacts = FRESH_FACTS[dataset]): Promise<string> {
  const store = new FolderStore(root);
  const staged = await store.stageArrays(dataset, RECORDS[dataset]);
  const result = await store.commit(
    staged,
    {
      generatedAt: facts.generatedAt,
      facts,
      freshUntil: freshUntil(dataset, facts, DEFAULT_LIMITS).toISOString(),
      allowStale: false,
      sources: [],
    },
    new Date(facts.generatedAt),
  );
  return result.snapshotId;
}

let work: string;
let store: string;

/** Runs pdsnap in an empty working directory, so no stray pdsnap.config.yaml is picked up. */
function pdsnap(...args: string[]) {
  return runCli(args, { cwd: work });
}

async function jsonOf(result: { stdout: unknown }): Promise<ValidationReport> {
  return JSON.parse(String(result.stdout)) as ValidationReport;
}

function statusByDataset(report: ValidationReport): Record<string, string> {
  return Object.fromEntries(report.datasets.map((d) => [d.dataset, d.status]));
}

describe('pdsnap validate', () => {
  beforeEach(async () => {
    work = await tempDir('validate-cwd');
    store = path.join(work, 'store');
  });

  it('exits 0 when every dataset is fresh and valid, with a table and the summary line', async () => {
    for (const dataset of ['articles', 'calendar', 'smart-money'] as const) await publish(store, dataset);
    // Two readers of one store, side by side.
    const [result, jsonResult] = await Promise.all([
      pdsnap('validate', '--store', store, '--now', NOW),
      pdsnap('validate', '--store', store, '--now', NOW, '--json'),
    ]);
    expect(result.exitCode).toBe(0);
    const lines = String(result.stdout).trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^PASS=\d+ WARN=0 FAIL=0$/);
    expect(String(result.stdout)).toMatch(/smart-money\s+content\.consensus-page-size\s+PASS/);

    const json = await jsonOf(jsonResult);
    expect(json.status).toBe('pass');
    expect(statusByDataset(json)).toEqual({ articles: 'pass', calendar: 'pass', 'smart-money': 'pass' });
    expect(json.datasets.find((d) => d.dataset === 'articles')?.freshUntil).toBe('2026-11-26T00:00:00.000Z');
  });

  it('exits 1 when a dataset is fresh but fails within --warn-within', async () => {
    for (const dataset of ['articles', 'calendar', 'smart-money'] as const) await publish(store, dataset);
    // articles go stale after 2026-11-26T00:00Z: 12 hours left.
    const [result, narrower] = await Promise.all([
      pdsnap('validate', '--store', store, '--now', '2026-11-25T12:00:00Z', '--json'),
      pdsnap('validate', '--store', store, '--now', '2026-11-25T12:00:00Z', '--warn-within', '6h'),
    ]);
    expect(result.exitCode).toBe(1);
    const json = await jsonOf(result);
    expect(statusByDataset(json)).toEqual({ articles: 'warn', calendar: 'pass', 'smart-money': 'pass' });
    expect(json.datasets[0]?.rules.find((r) => r.rule === 'freshness.latest-article-age')).toMatchObject({
      status: 'warn',
      failsAt: '2026-11-26T00:00:00.000Z',
    });
    // A narrower window turns the same state into a pass.
    expect(narrower.exitCode).toBe(0);
  });

  it('exits 2 when one dataset is stale and the others fresh, and the JSON shows which', async () => {
    await publish(store, 'articles', { generatedAt: '2026-11-14T00:00:00.000Z', latestPublishedAt: '2026-11-13T12:00:00.000Z' });
    await publish(store, 'calendar');
    await publish(store, 'smart-money');
    const output = path.join(work, 'report.json');
    const result = await pdsnap('validate', '--store', store, '--now', NOW, '--output', output);
    expect(result.exitCode).toBe(2);
    expect(String(result.stdout)).toMatch(/articles\s+freshness\.snapshot-age\s+FAIL/);
    expect(String(result.stdout)).toContain('PASS=');
    const json = JSON.parse(await readFile(output, 'utf8')) as ValidationReport;
    expect(json.status).toBe('fail');
    expect(statusByDataset(json)).toEqual({ articles: 'fail', calendar: 'pass', 'smart-money': 'pass' });
    expect(json.datasets[0]?.rules.filter((r) => r.status === 'fail').map((r) => r.rule)).toEqual([
      'freshness.snapshot-age',
      'freshness.latest-article-age',
    ]);
  });

  it('says in every overridden line that a config file changed the limit', async () => {
    await publish(store, 'articles', { generatedAt: '2026-11-14T00:00:00.000Z', latestPublishedAt: '2026-11-13T12:00:00.000Z' });
    await writeFile(
      path.join(work, 'pdsnap.config.yaml'),
      'freshness:\n  articles:\n    maxGenerationAgeDays: 10\n    maxLatestArticleAgeDays: 10\n',
    );
    const result = await pdsnap('validate', '--store', store, '--now', NOW, '--datasets', 'articles');
    expect(result.exitCode).toBe(0);
    const overridden = String(result.stdout)
      .split('\n')
      .filter((l) => l.includes('freshness.'));
    expect(overridden).toHaveLength(2);
    for (const line of overridden) expect(line).toContain('at most 10d old (config; service default 7d)');
  });

  it('exits 2 for a bundle with one byte flipped, and still checks the other datasets', async () => {
    const id = await publish(store, 'articles');
    await publish(store, 'calendar');
    await publish(store, 'smart-money');
    const file = await bundleFilePath(store, id, 'articles/00000.ndjson');
    const bytes = await readFile(file);
    const at = bytes.indexOf('Jane Doe') + 5;
    bytes[at] = bytes[at]! ^ 0x01; // 'D' -> 'E': same size, different digest
    await writeFile(file, bytes);

    const result = await pdsnap('validate', '--store', store, '--now', NOW, '--json');
    expect(result.exitCode).toBe(2);
    const json = await jsonOf(result);
    expect(statusByDataset(json)).toEqual({ articles: 'fail', calendar: 'pass', 'smart-money': 'pass' });
    expect(json.datasets[0]?.rules[0]).toMatchObject({ rule: 'integrity', status: 'fail' });
    expect(json.datasets[0]?.rules[0]?.message).toContain('articles/00000.ndjson does not match its sha256');
  });

  it('fails a dataset that has no current snapshot', async () => {
    await publish(store, 'articles');
    const json = await jsonOf(await pdsnap('validate', '--store', store, '--now', NOW, '--json'));
    expect(statusByDataset(json)).toEqual({ articles: 'pass', calendar: 'fail', 'smart-money': 'fail' });
    expect(json.datasets[1]?.rules[0]).toMatchObject({ rule: 'snapshot', status: 'fail' });
    expect(json.datasets[1]?.rules[0]?.message).toContain('no current snapshot');
  });

  it('checks only the snapshot named with --snapshot', async () => {
    const id = await publish(store, 'smart-money');
    const json = await jsonOf(await pdsnap('validate', '--store', store, '--now', NOW, '--snapshot', id, '--json'));
    expect(json.datasets.map((d) => [d.dataset, d.snapshotId, d.status])).toEqual([['smart-money', id, 'pass']]);
  });

  it.each([
    ['a missing store', (s: string) => ['--store', path.join(s, 'nowhere')], /store .*nowhere does not exist/],
    ['an invalid config', (s: string) => ['--store', s, '--config', 'bad.yaml'], /config bad\.yaml is invalid at freshness\.articles/],
    ['a missing config', (s: string) => ['--store', s, '--config', 'absent.yaml'], /config absent\.yaml does not exist/],
    ['a bad --warn-within', (s: string) => ['--store', s, '--warn-within', '1 day'], /--warn-within: "1 day" is not a duration/],
    ['an unknown --snapshot', (s: string) => ['--store', s, '--snapshot', 'articles-20261122T000000Z-000000000000'], /does not exist/],
  ])('exits 3, not 0, for %s', async (_what, args, message) => {
    await publish(store, 'articles');
    await writeFile(path.join(work, 'bad.yaml'), 'freshness:\n  articles:\n    maxAgeDays: 10\n');
    const result = await pdsnap('validate', ...args(store), '--now', NOW, '--datasets', 'articles');
    expect(result.exitCode).toBe(3);
    expect(String(result.stderr)).toMatch(message);
    expect(String(result.stdout)).toBe('');
  });
});

describe('pdsnap gate', () => {
  beforeEach(async () => {
    work = await tempDir('gate-cwd');
    store = path.join(work, 'store');
    for (const dataset of ['articles', 'calendar', 'smart-money'] as const) await publish(store, dataset);
  });

  it('passes when every dataset stays fresh for at least --min-remaining', async () => {
    // The earliest expiry is articles at 2026-11-26T00:00Z: 3d 12h after NOW.
    const result = await pdsnap('gate', '--store', store, '--now', NOW, '--min-remaining', '48h', '--json');
    expect(result.exitCode).toBe(0);
    const json = await jsonOf(result);
    expect(json.minRemaining).toBe('2d');
    const gate = json.datasets.map((d) => d.rules.find((r) => r.rule === 'gate.min-remaining'));
    expect(gate.map((r) => r?.status)).toEqual(['pass', 'pass', 'pass']);
    expect(gate[0]?.observed).toBe('3d 12h remaining');
  });

  it('passes at exactly the remaining time and fails (exit 2) when a dataset would expire sooner', async () => {
    const [exactly, result] = await Promise.all([
      pdsnap('gate', '--store', store, '--now', NOW, '--min-remaining', '3d12h'),
      pdsnap('gate', '--store', store, '--now', NOW, '--min-remaining', '4d', '--json'),
    ]);
    expect(exactly.exitCode).toBe(0);
    expect(result.exitCode).toBe(2);
    const json = await jsonOf(result);
    expect(statusByDataset(json)).toEqual({ articles: 'fail', calendar: 'pass', 'smart-money': 'pass' });
    expect(json.datasets[0]?.rules.at(-1)).toMatchObject({ rule: 'gate.min-remaining', status: 'fail', observed: '3d 12h remaining' });
  });

  it('exits 3 for a missing store', async () => {
    const result = await pdsnap('gate', '--store', path.join(work, 'nowhere'), '--now', NOW);
    expect(result.exitCode).toBe(3);
  });
});
