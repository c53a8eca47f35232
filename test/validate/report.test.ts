import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/model/manifest.js';
import { minRemainingRule, RecordChecks, unavailableDataset, validateBundle } from '../../src/validate/bundle-checks.js';
import { applyLimitOverrides, DEFAULT_LIMITS } from '../../src/validate/limits.js';
import { assembleReport, formatReport, summaryLine } from '../../src/validate/report.js';
import { article } from '../helpers/records.js';

const GEN = '2026-11-22T00:00:00.000Z';
const HOUR = 3_600_000;

function articlesBundle(records = [article('fed-holds-rates', '2026-11-21T00:00:00.000Z')]) {
  const manifest: Manifest = {
    format: 3,
    dataset: 'articles',
    snapshotId: 'articles-20261122T000000Z-3f2a9c1b7d4e',
    generatedAt: GEN,
    facts: { generatedAt: GEN, latestPublishedAt: '2026-11-21T00:00:00.000Z' },
    freshUntil: '2026-11-28T00:00:00.000Z',
    allowStale: false,
    sources: [],
    files: [{ path: 'articles/00000.ndjson', bytes: 1, sha256: 'a'.repeat(64), records: records.length }],
  };
  // The records as validate streams them past the checks.
  const checks = new RecordChecks('articles');
  for (const record of records) checks.inspect('articles', record);
  return { manifest, recordRules: checks.results({ id: manifest.snapshotId, generatedAt: GEN }) };
}

const options = { limits: DEFAULT_LIMITS, warnWithinMs: 24 * HOUR, minRemainingMs: null };

describe('validateBundle', () => {
  it('reports integrity, every freshness rule, schema and content rules for a verified bundle', () => {
    const result = validateBundle(articlesBundle(), new Date('2026-11-23T00:00:00.000Z'), options);
    expect(result.rules.map((r) => [r.rule, r.status])).toEqual([
      ['integrity', 'pass'],
      ['freshness.snapshot-age', 'pass'],
      ['freshness.latest-article-age', 'pass'],
      ['snapshot.generated-by-now', 'pass'],
      ['schema', 'pass'],
      ['content.identifiers', 'pass'],
      ['content.slugs', 'pass'],
    ]);
    expect(result).toMatchObject({
      status: 'pass',
      freshUntil: '2026-11-28T00:00:00.000Z',
      snapshotId: 'articles-20261122T000000Z-3f2a9c1b7d4e',
    });
  });

  it('fails the dataset when one record breaks its schema, naming the record', () => {
    const bad = { ...article('second'), locale: 'fr-FR' } as unknown as ReturnType<typeof article>;
    const result = validateBundle(articlesBundle([article('first'), bad]), new Date(GEN), options);
    const schema = result.rules.find((r) => r.rule === 'schema');
    expect(schema?.status).toBe('fail');
    expect(schema?.message).toContain('articles record 1 field /locale');
    expect(result.status).toBe('fail');
  });

  it('is warn when a rule fails within the warn window', () => {
    const result = validateBundle(articlesBundle(), new Date('2026-11-27T12:00:00.000Z'), options);
    expect(result.status).toBe('warn');
  });
});

describe('gate.min-remaining', () => {
  const until = new Date('2026-11-28T00:00:00.000Z');
  it('passes when freshUntil is exactly now + DUR', () => {
    const rule = minRemainingRule('articles', until, new Date('2026-11-26T00:00:00.000Z'), 48 * HOUR);
    expect(rule).toMatchObject({
      status: 'pass',
      observed: '2d remaining',
      limit: 'at least 2d remaining',
      failsAt: '2026-11-26T00:00:00.000Z',
    });
  });
  it('fails one millisecond later', () => {
    const rule = minRemainingRule('articles', until, new Date('2026-11-26T00:00:00.001Z'), 48 * HOUR);
    expect(rule).toMatchObject({ status: 'fail', observed: '1d 23h 59m 59s remaining' });
  });
  it('is added by validateBundle under gate, and fails for a dataset with no snapshot', () => {
    const gated = validateBundle(articlesBundle(), new Date('2026-11-27T00:00:00.000Z'), {
      ...options,
      warnWithinMs: 0,
      minRemainingMs: 48 * HOUR,
    });
    expect(gated.rules.at(-1)).toMatchObject({ rule: 'gate.min-remaining', status: 'fail' });
    const missing = unavailableDataset('calendar', null, 'snapshot', 'no current snapshot in /store', { minRemainingMs: 48 * HOUR });
    expect(missing.rules.map((r) => [r.rule, r.status])).toEqual([
      ['snapshot', 'fail'],
      ['gate.min-remaining', 'fail'],
    ]);
  });
});

describe('the report', () => {
  const limits = applyLimitOverrides({ articles: { maxGenerationAgeDays: 10 } });
  const report = assembleReport({
    command: 'validate',
    now: '2026-11-23T00:00:00.000Z',
    store: '/store',
    config: '/work/pdsnap.config.yaml',
    limits,
    warnWithin: '24h',
    minRemaining: null,
    datasets: [
      validateBundle(articlesBundle(), new Date('2026-11-23T00:00:00.000Z'), { ...options, limits }),
      unavailableDataset('calendar', null, 'snapshot', 'no current snapshot in /store', { minRemainingMs: null }),
    ],
  });

  it('counts rules and takes the worst status', () => {
    expect(report.summary).toEqual({ pass: 7, warn: 0, fail: 1 });
    expect(report.status).toBe('fail');
    expect(summaryLine(report)).toBe('PASS=7 WARN=0 FAIL=1');
  });

  it('prints an aligned table, the reasons of failures, and ends with the summary line', () => {
    const text = formatReport(report);
    const lines = text.split('\n');
    expect(lines.at(-1)).toBe('PASS=7 WARN=0 FAIL=1');
    const header = lines.find((l) => l.startsWith('dataset'))!;
    const row = lines.find((l) => l.includes('freshness.snapshot-age'))!;
    expect(row.indexOf('PASS')).toBe(header.indexOf('status'));
    expect(row).toContain('at most 10d old (config; service default 7d)');
    expect(text).toContain('FAIL  snapshot: calendar: no current snapshot in /store');
    expect(text).toContain('service defaults overridden by /work/pdsnap.config.yaml');
  });

  it('round-trips as JSON with observed, limit, status and failsAt per rule', () => {
    const json = JSON.parse(JSON.stringify(report));
    expect(json.datasets[0].rules[1]).toEqual({
      rule: 'freshness.snapshot-age',
      observed: '2026-11-22T00:00:00.000Z (1d old)',
      limit: 'at most 10d old (config; service default 7d)',
      status: 'pass',
      failsAt: '2026-12-02T00:00:00.000Z',
      message: 'articles: snapshot generatedAt 2026-11-22T00:00:00.000Z is 1d old, within 10d; fresh until 2026-12-02T00:00:00.000Z',
    });
  });
});
