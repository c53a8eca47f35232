import { describe, expect, it } from 'vitest';
import type { DatasetName } from '../../src/model/dataset.js';
import type { FreshnessFacts } from '../../src/model/freshness.js';
import { DEFAULT_LIMITS, evaluateFreshness, freshUntil, isInvalidAtBuild } from '../../src/validate/freshness.js';
import { applyLimitOverrides, type FreshnessLimits } from '../../src/validate/limits.js';

const DAY = 86_400_000;
const at = (iso: string) => new Date(iso);
const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms);

function ruleOf(
  dataset: DatasetName,
  facts: FreshnessFacts,
  now: Date,
  rule: string,
  warnWithinMs = 0,
  limits: FreshnessLimits = DEFAULT_LIMITS,
) {
  const result = evaluateFreshness(dataset, facts, now, { limits, warnWithinMs }).find((r) => r.rule === rule);
  if (!result) throw new Error(`no rule ${rule}`);
  return result;
}

// Facts where every other rule of the dataset is comfortably fresh, so each case tests one rule.
const GEN = '2026-11-22T00:00:00.000Z';
const fresh: Record<DatasetName, FreshnessFacts> = {
  articles: { generatedAt: GEN, latestPublishedAt: GEN },
  calendar: { generatedAt: GEN, oldestVerifiedAt: GEN, coverageThrough: '2027-06-30' },
  'smart-money': { generatedAt: GEN, oldestPeriod: '2026-09-30' },
};

describe('age rules at their boundary: exactly the limit passes, one millisecond more fails', () => {
  const cases: Array<{ dataset: DatasetName; rule: string; fact: keyof FreshnessFacts; value: string; zero: string; days: number }> = [
    { dataset: 'articles', rule: 'freshness.snapshot-age', fact: 'generatedAt', value: GEN, zero: GEN, days: 7 },
    {
      dataset: 'articles',
      rule: 'freshness.latest-article-age',
      fact: 'latestPublishedAt',
      value: '2026-11-20T08:30:00.000Z',
      zero: '2026-11-20T08:30:00.000Z',
      days: 7,
    },
    {
      dataset: 'calendar',
      rule: 'freshness.verification-age',
      fact: 'oldestVerifiedAt',
      value: '2026-09-01T06:00:00.000Z',
      zero: '2026-09-01T06:00:00.000Z',
      days: 100,
    },
    { dataset: 'smart-money', rule: 'freshness.snapshot-age', fact: 'generatedAt', value: GEN, zero: GEN, days: 14 },
    // A quarter end counts until 23:59:59.999Z of its date.
    {
      dataset: 'smart-money',
      rule: 'freshness.quarter-age',
      fact: 'oldestPeriod',
      value: '2026-06-30',
      zero: '2026-06-30T23:59:59.999Z',
      days: 180,
    },
  ];
  for (const c of cases) {
    const facts = { ...fresh[c.dataset], [c.fact]: c.value };
    const limitInstant = plus(c.zero, c.days * DAY);
    it(`${c.dataset} ${c.rule}: ${c.days} days old passes`, () => {
      const result = ruleOf(c.dataset, facts, limitInstant, c.rule);
      expect(result.status).toBe('pass');
      expect(result.failsAt).toBe(limitInstant.toISOString());
      expect(result.observed).toContain(`${c.days}d old`);
    });
    it(`${c.dataset} ${c.rule}: ${c.days} days and 1 ms old fails`, () => {
      const result = ruleOf(c.dataset, facts, plus(limitInstant.toISOString(), 1), c.rule);
      expect(result.status).toBe('fail');
      expect(result.observed).toContain(`${c.days}d 1s old`);
      expect(result.message).toContain(`stale since ${limitInstant.toISOString()}`);
    });
  }

  it('the quarter-age limit for 2026-06-30 is 2026-12-27T23:59:59.999Z', () => {
    const facts = { ...fresh['smart-money'], oldestPeriod: '2026-06-30' };
    expect(ruleOf('smart-money', facts, at('2026-12-01T00:00:00.000Z'), 'freshness.quarter-age').failsAt).toBe('2026-12-27T23:59:59.999Z');
    expect(ruleOf('smart-money', facts, at('2026-12-27T23:59:59.999Z'), 'freshness.quarter-age').status).toBe('pass');
    expect(ruleOf('smart-money', facts, at('2026-12-28T00:00:00.000Z'), 'freshness.quarter-age').status).toBe('fail');
  });
});

describe('calendar coverage: through the end of coverageThrough, at least 30 days past generation', () => {
  const cases = [
    {
      generatedAt: '2026-11-22T00:00:00.000Z',
      coverageThrough: '2026-12-21',
      status: 'pass',
      why: 'ends 2026-12-22T00:00Z, exactly 30 days',
    },
    { generatedAt: '2026-11-22T00:00:00.001Z', coverageThrough: '2026-12-21', status: 'fail', why: '30 days less 1 ms' },
    { generatedAt: '2026-11-22T00:00:00.000Z', coverageThrough: '2026-12-20', status: 'fail', why: '29 days' },
    {
      generatedAt: '2026-11-22T23:59:59.999Z',
      coverageThrough: '2026-12-22',
      status: 'pass',
      why: 'ends 2026-12-23T00:00Z, 30 days and 1 ms',
    },
  ] as const;
  for (const c of cases) {
    it(`generated ${c.generatedAt}, coverage through ${c.coverageThrough}: ${c.status} (${c.why})`, () => {
      const facts = { ...fresh.calendar, generatedAt: c.generatedAt, coverageThrough: c.coverageThrough };
      const result = ruleOf('calendar', facts, at(c.generatedAt), 'freshness.coverage-ahead');
      expect(result.status).toBe(c.status);
      expect(result.failsAt).toBeNull();
    });
  }

  it('does not depend on now: a valid coverage stays valid years later, an invalid one is invalid at build', () => {
    const ok = { ...fresh.calendar, coverageThrough: '2026-12-21' };
    expect(ruleOf('calendar', ok, at('2030-01-01T00:00:00.000Z'), 'freshness.coverage-ahead').status).toBe('pass');
    const short = { ...fresh.calendar, coverageThrough: '2026-12-20' };
    expect(ruleOf('calendar', short, at(GEN), 'freshness.coverage-ahead').message).toContain('invalid whatever the time');
    expect(isInvalidAtBuild('calendar', short, DEFAULT_LIMITS)).toBe(true);
    expect(isInvalidAtBuild('calendar', ok, DEFAULT_LIMITS)).toBe(false);
  });
});

describe('time zones', () => {
  it('compares a timestamp with an offset in UTC: 2026-11-22T09:00:00+09:00 is 2026-11-22T00:00:00Z', () => {
    const facts = { generatedAt: GEN, latestPublishedAt: '2026-11-22T09:00:00+09:00' };
    const exactly = ruleOf('articles', facts, at('2026-11-29T00:00:00.000Z'), 'freshness.latest-article-age');
    expect(exactly.status).toBe('pass');
    expect(exactly.failsAt).toBe('2026-11-29T00:00:00.000Z');
    // Read as a local 09:00 it would still pass here; in UTC it is 7 days and 1 ms old.
    expect(ruleOf('articles', facts, at('2026-11-29T00:00:00.001Z'), 'freshness.latest-article-age').status).toBe('fail');
  });

  it('refuses a zone-less timestamp instead of reading it in the machine zone', () => {
    const result = ruleOf(
      'articles',
      { generatedAt: GEN, latestPublishedAt: '2026-11-22T09:00:00' },
      at(GEN),
      'freshness.latest-article-age',
    );
    expect(result.status).toBe('fail');
    expect(result.message).toContain('2026-11-22T09:00:00');
  });

  it('refuses an impossible date', () => {
    const result = ruleOf('smart-money', { generatedAt: GEN, oldestPeriod: '2026-02-30' }, at(GEN), 'freshness.quarter-age');
    expect(result).toMatchObject({ status: 'fail', observed: 'unreadable "2026-02-30"' });
  });
});

describe('warn: fresh now, but failing within the warn window', () => {
  const facts = { generatedAt: '2026-11-15T12:00:00.000Z', latestPublishedAt: GEN }; // fails after 2026-11-22T12:00Z
  const cases = [
    { now: '2026-11-21T12:00:00.001Z', warnWithin: 24 * 3_600_000, status: 'warn' },
    { now: '2026-11-21T12:00:00.000Z', warnWithin: 24 * 3_600_000, status: 'pass' }, // exactly 24h left is not "within" 24h
    { now: '2026-11-22T12:00:00.000Z', warnWithin: 24 * 3_600_000, status: 'warn' }, // last fresh millisecond
    { now: '2026-11-22T12:00:00.001Z', warnWithin: 24 * 3_600_000, status: 'fail' },
    { now: '2026-11-22T11:00:00.000Z', warnWithin: 0, status: 'pass' },
  ] as const;
  for (const c of cases) {
    it(`at ${c.now} with a ${c.warnWithin} ms window: ${c.status}`, () => {
      const result = ruleOf('articles', facts, at(c.now), 'freshness.snapshot-age', c.warnWithin);
      expect(result.status).toBe(c.status);
    });
  }
});

describe('missing facts', () => {
  it('fails an articles snapshot with no latestPublishedAt (zero records) with a clear message', () => {
    const result = ruleOf('articles', { generatedAt: GEN }, at(GEN), 'freshness.latest-article-age');
    expect(result).toMatchObject({ status: 'fail', observed: 'missing', failsAt: null });
    expect(result.message).toMatch(/no latestPublishedAt/);
    expect(isInvalidAtBuild('articles', { generatedAt: GEN }, DEFAULT_LIMITS)).toBe(true);
  });
  it.each([
    ['calendar', 'freshness.verification-age', { generatedAt: GEN, coverageThrough: '2027-01-31' }],
    ['calendar', 'freshness.coverage-ahead', { generatedAt: GEN, oldestVerifiedAt: GEN }],
    ['smart-money', 'freshness.quarter-age', { generatedAt: GEN }],
  ] as const)('fails %s %s when its fact is missing', (dataset, rule, facts) => {
    expect(ruleOf(dataset, facts, at(GEN), rule).status).toBe('fail');
  });
});

describe('freshUntil', () => {
  it('is the earliest failsAt of the rules', () => {
    const facts = { generatedAt: GEN, latestPublishedAt: '2026-11-20T00:00:00.000Z' };
    expect(freshUntil('articles', facts, DEFAULT_LIMITS).toISOString()).toBe('2026-11-27T00:00:00.000Z');
    expect(freshUntil('smart-money', { generatedAt: GEN, oldestPeriod: '2026-06-30' }, DEFAULT_LIMITS).toISOString()).toBe(
      '2026-12-06T00:00:00.000Z',
    );
    expect(
      freshUntil(
        'calendar',
        { generatedAt: GEN, oldestVerifiedAt: '2026-09-01T00:00:00.000Z', coverageThrough: '2027-01-31' },
        DEFAULT_LIMITS,
      ).toISOString(),
    ).toBe('2026-12-10T00:00:00.000Z');
  });
  it('is the generatedAt instant for a snapshot that is invalid at build (coverage too short)', () => {
    const facts = { generatedAt: GEN, oldestVerifiedAt: GEN, coverageThrough: '2026-12-01' };
    expect(freshUntil('calendar', facts, DEFAULT_LIMITS).toISOString()).toBe(GEN);
  });
  it('follows overridden limits', () => {
    const limits = applyLimitOverrides({ articles: { maxGenerationAgeDays: 3 } });
    expect(freshUntil('articles', fresh.articles, limits).toISOString()).toBe('2026-11-25T00:00:00.000Z');
  });
});

describe('overridden limits are never silent', () => {
  const limits = applyLimitOverrides({ articles: { maxGenerationAgeDays: 10 } });
  it('says "config; service default" on the overridden rule only, and judges by the override', () => {
    const results = evaluateFreshness('articles', { generatedAt: GEN, latestPublishedAt: GEN }, plus(GEN, 7 * DAY + 1), {
      limits,
      warnWithinMs: 0,
    });
    const generation = results.find((r) => r.rule === 'freshness.snapshot-age')!;
    const latest = results.find((r) => r.rule === 'freshness.latest-article-age')!;
    expect(generation.limit).toBe('at most 10d old (config; service default 7d)');
    expect(generation.status).toBe('pass');
    expect(latest.limit).toBe('at most 7d old');
    expect(latest.status).toBe('fail');
  });
});
