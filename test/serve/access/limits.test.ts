import { describe, expect, it } from 'vitest';
import { billMonth } from '../../../src/serve/access/billing.js';
import { limitHeaders } from '../../../src/serve/access/limit-headers.js';
import { decideAdmission, TIERS } from '../../../src/serve/access/limits.js';
import { nextUtcMonthStart, secondsUntil, utcMonth, windowEndSeconds, windowStartSeconds } from '../../../src/serve/access/utc-windows.js';

const at = (iso: string) => new Date(iso);

describe('clock windows', () => {
  it('aligns the 60-second window to the Unix clock, not to the first request', () => {
    const now = at('2026-11-22T10:15:42.500Z');
    expect(windowStartSeconds(now)).toBe(Date.parse('2026-11-22T10:15:00Z') / 1000);
    expect(windowEndSeconds(now)).toBe(Date.parse('2026-11-22T10:16:00Z') / 1000);
  });

  it('names the UTC month, not the local one, and finds the next month start across a year end', () => {
    expect(utcMonth(at('2026-11-30T23:59:59Z'))).toBe('2026-11');
    expect(utcMonth(at('2026-12-01T00:30:00+01:00'))).toBe('2026-11');
    // The month is kept between calls: moving across its edges either way still names the right one.
    expect(utcMonth(at('2026-12-01T00:00:00Z'))).toBe('2026-12');
    expect(utcMonth(at('2026-11-30T23:59:59.999Z'))).toBe('2026-11');
    expect(utcMonth(at('2026-11-01T00:00:00Z'))).toBe('2026-11');
    expect(utcMonth(at('2026-10-31T23:59:59.999Z'))).toBe('2026-10');
    expect(utcMonth(at('2027-01-01T00:00:00Z'))).toBe('2027-01');
    expect(() => utcMonth(new Date(Number.NaN))).toThrow(RangeError);
    expect(nextUtcMonthStart(at('2026-12-15T08:00:00Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });

  it('rounds a wait up to whole seconds and never answers 0', () => {
    expect(secondsUntil(at('2026-11-22T10:15:42.500Z'), Date.parse('2026-11-22T10:16:00Z') / 1000)).toBe(18);
    expect(secondsUntil(at('2026-11-22T10:16:00Z'), Date.parse('2026-11-22T10:16:00Z') / 1000)).toBe(1);
  });
});

describe('decideAdmission', () => {
  const now = at('2026-11-22T10:15:42Z');

  it('admits below both limits and counts the request in the window and the month', () => {
    expect(decideAdmission('member', { month: 10, window: 59 }, now)).toEqual({ allowed: true, counts: { month: 11, window: 60 } });
  });

  it('refuses the 61st member request of a window as rate_limited until the window ends', () => {
    const decision = decideAdmission('member', { month: 100, window: 60 }, now);
    expect(decision).toMatchObject({ allowed: false, code: 'rate_limited', retryAfterSeconds: 18, counts: { month: 100, window: 60 } });
  });

  it('lets premium keys make 300 requests a minute', () => {
    expect(decideAdmission('premium', { month: 0, window: 299 }, now).allowed).toBe(true);
    expect(decideAdmission('premium', { month: 0, window: 300 }, now)).toMatchObject({ allowed: false, code: 'rate_limited' });
  });

  it('checks the hard cap before the minute, with a wait until the next UTC month', () => {
    const decision = decideAdmission('member', { month: 20_000, window: 60 }, now);
    expect(decision).toMatchObject({ allowed: false, code: 'quota_exceeded' });
    if (decision.allowed) throw new Error('unreachable');
    expect(decision.retryAfterSeconds).toBe((Date.parse('2026-12-01T00:00:00Z') - now.getTime()) / 1000);
    expect(decision.message).toContain('2026-12-01T00:00:00.000Z');
  });

  it('admits overage between the included amount and the hard cap', () => {
    expect(decideAdmission('member', { month: 19_999, window: 0 }, now).allowed).toBe(true);
    expect(decideAdmission('premium', { month: 499_999, window: 0 }, now).allowed).toBe(true);
    expect(decideAdmission('premium', { month: 500_000, window: 0 }, now)).toMatchObject({ code: 'quota_exceeded' });
  });
});

describe('limitHeaders', () => {
  const now = at('2026-11-22T10:15:42Z');
  const windowEnd = String(Date.parse('2026-11-22T10:16:00Z') / 1000);
  const monthEnd = String(Date.parse('2026-12-01T00:00:00Z') / 1000);

  it('gives Profile A the hard cap as X-Quota-Limit and the month reset in Unix seconds', () => {
    expect(limitHeaders('A', 'member', { month: 4, window: 4 }, now)).toEqual({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '56',
      'X-RateLimit-Reset': windowEnd,
      'X-Quota-Limit': '20000',
      'X-Quota-Remaining': '9996',
      'X-Quota-Reset': monthEnd,
    });
  });

  it('gives Profile B the published tier name, included and used counts', () => {
    expect(limitHeaders('B', 'member', { month: 4, window: 4 }, now)).toEqual({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '56',
      'X-RateLimit-Reset': windowEnd,
      'X-Quota-Tier': 'free',
      'X-Quota-Included': '10000',
      'X-Quota-Used': '4',
      'X-Quota-Remaining': '9996',
    });
    expect(limitHeaders('B', 'premium', { month: 0, window: 0 }, now)['X-Quota-Tier']).toBe('premium');
  });

  it('reports 0 included requests left while in overage, and adds Retry-After only when given', () => {
    const headers = limitHeaders('B', 'member', { month: 12_345, window: 60 }, now, 18);
    expect(headers['X-Quota-Remaining']).toBe('0');
    expect(headers['X-RateLimit-Remaining']).toBe('0');
    expect(headers['Retry-After']).toBe('18');
    expect(limitHeaders('B', 'member', { month: 1, window: 1 }, now)).not.toHaveProperty('Retry-After');
  });
});

describe('billMonth', () => {
  it('bills nothing within the included requests', () => {
    expect(billMonth('member', 10_000)).toMatchObject({ overage: 0, billableCents: 0, billableUsd: '0.00', hardCapReached: false });
  });

  it('bills member overage pro rata at 2 USD per 1,000, rounded up to the cent once', () => {
    expect(billMonth('member', 10_001)).toMatchObject({ overage: 1, billableCents: 1, billableUsd: '0.01' });
    expect(billMonth('member', 10_500)).toMatchObject({ overage: 500, billableCents: 100, billableUsd: '1.00' });
    expect(billMonth('member', 20_000)).toMatchObject({ overage: 10_000, billableCents: 2000, billableUsd: '20.00', hardCapReached: true });
  });

  it('bills premium overage at 1 USD per 1,000', () => {
    expect(billMonth('premium', 100_000 + 1_234)).toMatchObject({ overage: 1_234, billableCents: 124, billableUsd: '1.24' });
    expect(billMonth('premium', TIERS.premium.hardCapPerMonth)).toMatchObject({ billableUsd: '400.00', hardCapReached: true });
  });
});
