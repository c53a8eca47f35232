import { describe, expect, it } from 'vitest';
import {
  applyDriftOverrides,
  DEFAULT_DRIFT_THRESHOLDS,
  type DatasetWatch,
  type DriftComparison,
  evaluateDrift,
  type InvestorFiling,
} from '../../src/validate/drift.js';

const statusOf = (results: ReturnType<typeof evaluateDrift>, rule: string) => results.find((r) => r.rule === rule)?.status;

interface Side {
  records: Record<string, number>;
  keys: Record<string, string[]>;
  watch: DatasetWatch;
}

/** Compares two sides the way the comparison engine reports them: counts, and keys lost or new. */
function compare(before: Side, after: Side): DriftComparison {
  const resources: Record<string, DriftComparison['resources'][string]> = {};
  for (const [name, count] of Object.entries(after.records)) {
    const a = before.keys[name];
    const b = after.keys[name];
    resources[name] = {
      before: before.records[name]!,
      after: count,
      ...(a && b
        ? {
            keys: {
              lost: a.filter((k) => !b.includes(k)).length,
              added: b.filter((k) => !a.includes(k)).length,
              lostSample: a.filter((k) => !b.includes(k)),
            },
          }
        : {}),
    };
  }
  return { baseline: 'before', resources, watch: { before: before.watch, after: after.watch } };
}

const keys = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

function smartMoney(investors: number, trades: number, newestPeriod = '2026-09-30'): Side {
  const filings = new Map<string, InvestorFiling>();
  for (let i = 0; i < investors; i += 1)
    filings.set(`fund-${i}`, { name: `Fund ${i} LP`, period: newestPeriod, filedAt: '2026-11-14T00:00:00.000Z' });
  return {
    records: { investors, consensus: 300, trades },
    keys: { investors: [...filings.keys()], consensus: keys('issuer', 300) },
    watch: { dataset: 'smart-money', newestPeriod, investors: filings },
  };
}

function articles(slugs: string[], newestPublishedAt: string): Side {
  return { records: { articles: slugs.length }, keys: { articles: slugs }, watch: { dataset: 'articles', newestPublishedAt } };
}

describe('evaluateDrift', () => {
  it('passes the first snapshot of a dataset with a note that there is nothing to compare with', () => {
    const results = evaluateDrift(null, DEFAULT_DRIFT_THRESHOLDS['smart-money']);
    expect(results).toEqual([
      expect.objectContaining({ rule: 'drift.baseline', status: 'pass', message: expect.stringContaining('first snapshot') }),
    ]);
  });

  it('fails a partial download: 25 -> 7 investors and 824 -> 193 trades, naming investors that disappear', () => {
    const results = evaluateDrift(compare(smartMoney(25, 824), smartMoney(7, 193)), DEFAULT_DRIFT_THRESHOLDS['smart-money']);
    expect(statusOf(results, 'drift.investors.shrink')).toBe('fail');
    expect(statusOf(results, 'drift.investors.lost-keys')).toBe('fail');
    expect(statusOf(results, 'drift.trades.shrink')).toBe('fail');
    const shrink = results.find((r) => r.rule === 'drift.investors.shrink')!;
    expect(shrink.observed).toBe('25 -> 7 records (-72.0%)');
    const gone = results.find((r) => r.rule === 'drift.smart-money.investors-gone')!;
    expect(gone.observed).toBe('18 investor(s) gone');
    expect(gone.message).toContain('Fund 7 LP (fund-7, last filing 2026-09-30 filed 2026-11-14)');
    expect(gone.message).toContain('and 13 more');
  });

  it('passes a quarter-end rebuild: same investors, a new quarter, trades recomputed at a similar volume', () => {
    const results = evaluateDrift(
      compare(smartMoney(25, 824, '2026-06-30'), smartMoney(25, 700, '2026-09-30')),
      DEFAULT_DRIFT_THRESHOLDS['smart-money'],
    );
    expect(results.filter((r) => r.status !== 'pass')).toEqual([]);
  });

  it('fails when the newest 13F quarter moves backwards', () => {
    const results = evaluateDrift(
      compare(smartMoney(25, 824, '2026-09-30'), smartMoney(25, 824, '2026-06-30')),
      DEFAULT_DRIFT_THRESHOLDS['smart-money'],
    );
    expect(statusOf(results, 'drift.smart-money.newest-quarter')).toBe('fail');
  });

  it('warns, then fails, as a resource grows past its thresholds (a bad join duplicates rows)', () => {
    const t = DEFAULT_DRIFT_THRESHOLDS['smart-money'];
    expect(statusOf(evaluateDrift(compare(smartMoney(25, 100), smartMoney(25, 150)), t), 'drift.trades.growth')).toBe('pass');
    expect(statusOf(evaluateDrift(compare(smartMoney(25, 100), smartMoney(25, 250)), t), 'drift.trades.growth')).toBe('warn');
    expect(statusOf(evaluateDrift(compare(smartMoney(25, 100), smartMoney(25, 401)), t), 'drift.trades.growth')).toBe('fail');
  });

  it('lets one article be added, one removed and one retitled, but fails when every Markdown article is gone', () => {
    const t = DEFAULT_DRIFT_THRESHOLDS.articles;
    const today = Array.from({ length: 19 }, (_, i) => `story-${i}`);
    const tomorrow = [...today.slice(1), 'story-new'];
    expect(
      evaluateDrift(compare(articles(today, '2026-11-21T10:00:00.000Z'), articles(tomorrow, '2026-11-22T09:00:00.000Z')), t).filter(
        (r) => r.status !== 'pass',
      ),
    ).toEqual([]);
    const partial = evaluateDrift(
      compare(articles(today, '2026-11-21T10:00:00.000Z'), articles(today.slice(10), '2026-11-20T10:00:00.000Z')),
      t,
    );
    expect(statusOf(partial, 'drift.articles.shrink')).toBe('fail');
    expect(statusOf(partial, 'drift.articles.lost-keys')).toBe('fail');
    expect(statusOf(partial, 'drift.articles.newest')).toBe('fail');
    expect(partial.find((r) => r.rule === 'drift.articles.lost-keys')!.message).toContain(
      'e.g. story-0, story-1, story-2, story-3, story-4',
    );
  });

  it('fails the calendar when the events of the next 30 days fall by more than 40%', () => {
    const calendar = (upcoming: number): Side => ({
      records: { events: 175 },
      keys: { events: keys('event', 175) },
      watch: { dataset: 'calendar', generatedAt: '2026-11-22T00:00:00.000Z', eventsNext30Days: upcoming },
    });
    const t = DEFAULT_DRIFT_THRESHOLDS.calendar;
    expect(statusOf(evaluateDrift(compare(calendar(60), calendar(55)), t), 'drift.calendar.upcoming')).toBe('pass');
    expect(statusOf(evaluateDrift(compare(calendar(60), calendar(45)), t), 'drift.calendar.upcoming')).toBe('warn');
    expect(statusOf(evaluateDrift(compare(calendar(60), calendar(30)), t), 'drift.calendar.upcoming')).toBe('fail');
  });

  it('fails investors published from an older quarter, or from the same filing with fewer positions, and passes an amendment that adds some', () => {
    const t = DEFAULT_DRIFT_THRESHOLDS['smart-money'];
    const side = (edit: (slug: string, filing: InvestorFiling) => InvestorFiling): Side => {
      const base = smartMoney(20, 500);
      const investors = new Map<string, InvestorFiling>();
      for (const [slug, filing] of (base.watch as { investors: ReadonlyMap<string, InvestorFiling> }).investors)
        investors.set(slug, edit(slug, { ...filing, positionCount: 40, reportedValueTotal: 1_000_000 }));
      return { ...base, watch: { dataset: 'smart-money', newestPeriod: '2026-09-30', investors } };
    };
    const today = side((_, f) => f);
    const older = (n: number) => side((slug, f) => (Number(slug.slice(5)) < n ? { ...f, period: '2026-06-30' } : f));
    const cut = (n: number) => side((slug, f) => (Number(slug.slice(5)) < n ? { ...f, positionCount: 20 } : f));
    expect(evaluateDrift(compare(today, today), t).filter((r) => r.status !== 'pass')).toEqual([]);
    expect(statusOf(evaluateDrift(compare(today, older(1)), t), 'drift.smart-money.older-filings')).toBe('warn');
    expect(statusOf(evaluateDrift(compare(today, older(2)), t), 'drift.smart-money.older-filings')).toBe('warn');
    expect(statusOf(evaluateDrift(compare(today, older(3)), t), 'drift.smart-money.older-filings')).toBe('fail');
    expect(statusOf(evaluateDrift(compare(today, cut(3)), t), 'drift.smart-money.shrunk-filings')).toBe('fail');
    // A NEW HOLDINGS amendment adds positions to the same filing; a new quarter is a later filing.
    const amended = side((slug, f) => (slug === 'fund-0' ? { ...f, positionCount: 45, reportedValueTotal: 1_200_000 } : f));
    const nextQuarter = side((_, f) => ({ ...f, period: '2026-12-31', filedAt: '2027-02-10T00:00:00.000Z', positionCount: 10 }));
    expect(evaluateDrift(compare(today, amended), t).filter((r) => r.status !== 'pass')).toEqual([]);
    expect(evaluateDrift(compare(today, nextQuarter), t).filter((r) => r.status !== 'pass')).toEqual([]);
  });

  it('fails calendar events still ahead that are gone, and events verified earlier than before; lets past events roll off', () => {
    const t = DEFAULT_DRIFT_THRESHOLDS.calendar;
    const events = (ids: string[], verifiedAt: (id: string) => string) =>
      new Map(
        ids.map((id) => [
          id,
          { scheduledAt: id.startsWith('past') ? '2026-11-01T00:00:00.000Z' : '2026-12-01T00:00:00.000Z', verifiedAt: verifiedAt(id) },
        ]),
      );
    const calendar = (ids: string[], generatedAt: string, verifiedAt: (id: string) => string = () => '2026-11-20T00:00:00.000Z'): Side => ({
      records: { events: ids.length },
      keys: { events: ids },
      watch: { dataset: 'calendar', generatedAt, eventsNext30Days: 0, events: events(ids, verifiedAt) },
    });
    const ahead = keys('ahead', 40);
    const today = calendar([...keys('past', 10), ...ahead], '2026-11-22T00:00:00.000Z');
    // Tomorrow: past events rolled off, the rest verified again.
    const tomorrow = calendar(ahead, '2026-11-23T00:00:00.000Z', () => '2026-11-23T00:00:00.000Z');
    expect(evaluateDrift(compare(today, tomorrow), t).filter((r) => r.rule.startsWith('drift.calendar.') && r.status !== 'pass')).toEqual(
      [],
    );
    const renamed = calendar([...ahead.slice(0, 30), ...keys('qa', 10)], '2026-11-23T00:00:00.000Z');
    const lost = evaluateDrift(compare(today, renamed), t).find((r) => r.rule === 'drift.calendar.upcoming-lost')!;
    expect(lost).toMatchObject({ status: 'fail', observed: '10 of 40 events still ahead gone (25.0%)' });
    const stale = calendar(ahead, '2026-11-23T00:00:00.000Z', (id) =>
      id < 'ahead-2' ? '2026-11-01T00:00:00.000Z' : '2026-11-20T00:00:00.000Z',
    );
    const older = evaluateDrift(compare(today, stale), t).find((r) => r.rule === 'drift.calendar.older-verification')!;
    expect(older.status).toBe('fail');
    expect(older.message).toContain('(2026-11-20T00:00:00.000Z -> 2026-11-01T00:00:00.000Z)');
  });

  it('counts an event moved to a new time (a new id) as moved, not lost: same country and name within 7 days', () => {
    const t = DEFAULT_DRIFT_THRESHOLDS.calendar;
    const event = (name: string, scheduledAt: string) => ({
      scheduledAt,
      verifiedAt: '2026-11-20T00:00:00.000Z',
      country: 'US',
      eventName: name,
    });
    const side = (events: Array<[string, ReturnType<typeof event>]>): Side => ({
      records: { events: events.length },
      keys: { events: events.map(([id]) => id) },
      watch: { dataset: 'calendar', generatedAt: '2026-11-23T00:00:00.000Z', eventsNext30Days: 0, events: new Map(events) },
    });
    const names = Array.from({ length: 10 }, (_, i) => `Indicator ${i}`);
    const today = side(names.map((name, i) => [`evt-a${i}`, event(name, '2026-12-01T00:00:00.000Z')]));
    // Each one's tentative midnight became 13:30 the same day, or it was put off by six days: new ids.
    const moved = side(
      names.map((name, i) => [`evt-b${i}`, event(name, i % 2 === 0 ? '2026-12-01T13:30:00.000Z' : '2026-12-07T00:00:00.000Z')]),
    );
    expect(evaluateDrift(compare(today, moved), t).find((r) => r.rule === 'drift.calendar.upcoming-lost')).toMatchObject({
      status: 'pass',
      observed: '0 of 10 events still ahead gone (0.0%)',
    });
    // Put off by more than a week, or renamed: gone from where it was.
    const gone = side(names.map((name, i) => [`evt-c${i}`, event(i < 5 ? `${name} (revised)` : name, '2026-12-09T00:00:00.000Z')]));
    expect(evaluateDrift(compare(today, gone), t).find((r) => r.rule === 'drift.calendar.upcoming-lost')).toMatchObject({
      status: 'fail',
      observed: '10 of 10 events still ahead gone (100.0%)',
    });
  });

  it('fails investors gone with a current filing, not those the quarter rule aged out', () => {
    const t = DEFAULT_DRIFT_THRESHOLDS['smart-money'];
    const withOneBehind = (investors: number): Side => {
      const side = smartMoney(investors, 824);
      const filings = new Map((side.watch as { investors: ReadonlyMap<string, InvestorFiling> }).investors);
      filings.set('fund-behind', { name: 'Behind LP', period: '2026-06-30', filedAt: '2026-08-14T00:00:00.000Z' });
      return { ...side, watch: { dataset: 'smart-money', newestPeriod: '2026-09-30', investors: filings } };
    };
    const agedOut = evaluateDrift(compare(withOneBehind(25), smartMoney(25, 824)), t);
    expect(statusOf(agedOut, 'drift.smart-money.gone-while-fresh')).toBe('pass');
    expect(statusOf(agedOut, 'drift.smart-money.investors-gone')).toBe('warn');
    expect(statusOf(evaluateDrift(compare(smartMoney(25, 824), smartMoney(24, 824)), t), 'drift.smart-money.gone-while-fresh')).toBe(
      'warn',
    );
    const tenth = evaluateDrift(compare(smartMoney(25, 824), smartMoney(23, 824)), t);
    expect(statusOf(tenth, 'drift.investors.shrink')).toBe('pass');
    expect(statusOf(tenth, 'drift.smart-money.gone-while-fresh')).toBe('fail');
  });

  it('warns one investor dropped from the registry with --all-filers, and fails the registry emptied', () => {
    const t = DEFAULT_DRIFT_THRESHOLDS['smart-money'];
    const side = (unlisted: number): Side => {
      const base = smartMoney(20, 500);
      const investors = new Map<string, InvestorFiling>();
      for (const [slug, filing] of (base.watch as { investors: ReadonlyMap<string, InvestorFiling> }).investors)
        investors.set(slug, { ...filing, category: Number(slug.slice(5)) < unlisted ? 'unclassified' : 'hedge-fund' });
      return { ...base, watch: { dataset: 'smart-money', newestPeriod: '2026-09-30', investors } };
    };
    expect(statusOf(evaluateDrift(compare(side(0), side(0)), t), 'drift.smart-money.registry-lost')).toBe('pass');
    expect(statusOf(evaluateDrift(compare(side(0), side(1)), t), 'drift.smart-money.registry-lost')).toBe('warn');
    expect(evaluateDrift(compare(side(0), side(20)), t).find((r) => r.rule === 'drift.smart-money.registry-lost')).toMatchObject({
      status: 'fail',
      observed: '20 of 20 registry investors now unclassified (100.0%)',
    });
    // Filers the registry never listed are no loss.
    expect(statusOf(evaluateDrift(compare(side(5), side(5)), t), 'drift.smart-money.registry-lost')).toBe('pass');
  });

  it('fails a locale that loses every article', () => {
    const t = DEFAULT_DRIFT_THRESHOLDS.articles;
    const side = (locales: Record<string, number>): Side => {
      const slugs = Object.entries(locales).flatMap(([locale, n]) => keys(locale, n));
      return {
        records: { articles: slugs.length },
        keys: { articles: slugs },
        watch: { dataset: 'articles', newestPublishedAt: '2026-11-22T09:00:00.000Z', locales: new Map(Object.entries(locales)) },
      };
    };
    expect(
      statusOf(evaluateDrift(compare(side({ 'en-US': 40, 'zh-CN': 2 }), side({ 'en-US': 40, 'zh-CN': 1 })), t), 'drift.articles.locales'),
    ).toBe('pass');
    const gone = evaluateDrift(compare(side({ 'en-US': 40, 'zh-CN': 2 }), side({ 'en-US': 41 })), t);
    expect(statusOf(gone, 'drift.articles.shrink')).toBe('pass');
    expect(gone.find((r) => r.rule === 'drift.articles.locales')).toMatchObject({ status: 'fail', observed: '1 locale(s) gone: zh-CN' });
  });

  it('fails a source whose feed gave articles and gives none, and judges nothing for a bundle that predates the count', () => {
    const t = DEFAULT_DRIFT_THRESHOLDS.articles;
    const side = (feedItems: Record<string, number> | undefined, articles = 40): Side => {
      const slugs = keys('en-US', articles);
      return {
        records: { articles: slugs.length },
        keys: { articles: slugs },
        watch: {
          dataset: 'articles',
          newestPublishedAt: '2026-11-22T09:00:00.000Z',
          ...(feedItems ? { feedItems: new Map(Object.entries(feedItems)) } : {}),
        },
      };
    };
    // A feed rolls its oldest items off: fewer is a normal day.
    expect(statusOf(evaluateDrift(compare(side({ wire: 20, desk: 3 }), side({ wire: 20, desk: 1 })), t), 'drift.articles.feeds')).toBe(
      'pass',
    );
    // An emptied feed is 3 articles of 40, which the count alone lets through.
    const emptied = evaluateDrift(compare(side({ wire: 20, desk: 3 }), side({ wire: 20 }, 37)), t);
    expect(statusOf(emptied, 'drift.articles.shrink')).toBe('pass');
    expect(emptied.find((r) => r.rule === 'drift.articles.feeds')).toMatchObject({
      status: 'fail',
      observed: '1 feed(s) emptied: desk',
      message: 'no article left from the feed of desk (3 article(s) before): the feed is empty, unreadable or missing from the sources',
    });
    // A feed that gave nothing before is no loss; a bundle built before the count gives no verdict.
    expect(statusOf(evaluateDrift(compare(side({}), side({ wire: 2 })), t), 'drift.articles.feeds')).toBe('pass');
    expect(evaluateDrift(compare(side(undefined), side({})), t).map((r) => r.rule)).not.toContain('drift.articles.feeds');
  });

  it('turns a check off with a null threshold', () => {
    const t = {
      resources: {
        trades: { ...DEFAULT_DRIFT_THRESHOLDS['smart-money'].resources.trades!, shrinkWarnPercent: null, shrinkFailPercent: null },
      },
    };
    const shrink = evaluateDrift(compare(smartMoney(25, 824), smartMoney(25, 10)), t).find((r) => r.rule === 'drift.trades.shrink')!;
    expect(shrink).toMatchObject({ status: 'pass', limit: 'off' });
  });

  it('takes per-resource overrides from the config and keeps every other default', () => {
    const merged = applyDriftOverrides({
      'smart-money': { resources: { trades: { shrinkFailPercent: 80 } } },
      calendar: { upcomingEventsFailPercent: null },
    });
    expect(merged['smart-money'].resources.trades).toMatchObject({ shrinkFailPercent: 80, shrinkWarnPercent: 30, growthFailPercent: 300 });
    expect(merged['smart-money'].resources.investors).toEqual(DEFAULT_DRIFT_THRESHOLDS['smart-money'].resources.investors);
    expect(merged.calendar.upcomingEventsFailPercent).toBeNull();
    expect(merged.calendar.upcomingEventsWarnPercent).toBe(20);
    expect(statusOf(evaluateDrift(compare(smartMoney(25, 824), smartMoney(25, 300)), merged['smart-money']), 'drift.trades.shrink')).toBe(
      'warn',
    );
  });
});
