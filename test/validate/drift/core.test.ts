import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { graded, pair, type WarnFail, warnFail } from '../../../src/validate/drift/core.js';
import { datasetThresholds, STEADY, withOverride } from '../../../src/validate/drift/thresholds.js';

describe('a pair of thresholds, read by its name', () => {
  it.each([
    ['both set', { shrinkWarnPercent: 10, shrinkFailPercent: 25 }, { warn: 10, fail: 25 }],
    ['one off', { shrinkWarnPercent: 10, shrinkFailPercent: null }, { warn: 10, fail: null }],
    ['not set at all (another dataset\u2019s check)', {}, { warn: null, fail: null }],
  ])('%s', (_, thresholds, expected) => {
    expect(pair(thresholds, 'shrink')).toEqual(expected);
  });

  it('names the schema keys after the check', () => {
    expect(Object.keys(warnFail('upcomingLost'))).toEqual(['upcomingLostWarnPercent', 'upcomingLostFailPercent']);
  });
});

describe('graded', () => {
  const limits: WarnFail = { warn: 10, fail: 25 };
  it.each([
    [0, limits, 'pass', 'warn above 10%, fail above 25% of keys lost'],
    [10, limits, 'pass', 'warn above 10%, fail above 25% of keys lost'],
    [10.1, limits, 'warn', 'warn above 10%, fail above 25% of keys lost'],
    [25, limits, 'warn', 'warn above 10%, fail above 25% of keys lost'],
    [25.1, limits, 'fail', 'warn above 10%, fail above 25% of keys lost'],
    [90, { warn: null, fail: 50 }, 'fail', 'fail above 50% of keys lost'],
    [90, { warn: 0, fail: null }, 'warn', 'warn above 0% of keys lost'],
    [90, { warn: null, fail: null }, 'pass', 'off'],
  ] as const)('%d%% against %o: %s', (value, given, status, limit) => {
    expect(graded('drift.x.lost-keys', 'observed', value, given, 'of keys lost', 'message')).toEqual({
      rule: 'drift.x.lost-keys',
      observed: 'observed',
      limit,
      status,
      failsAt: null,
      message: 'message',
    });
  });
});

describe('a dataset thresholds override, derived from its schema', () => {
  const { schema, override } = datasetThresholds(['events'], { ...warnFail('upcomingLost') });

  it.each([
    ['nothing', {}, null],
    ['one threshold of a resource', { resources: { events: { shrinkFailPercent: 70 } } }, null],
    ['a pair of its own checks, one turned off', { upcomingLostWarnPercent: 1, upcomingLostFailPercent: null }, null],
    ['a resource it does not have', { resources: { trades: {} } }, 'resources: Unrecognized key: "trades"'],
    [
      'a misspelt threshold of a resource',
      { resources: { events: { shrinkWarn: 1 } } },
      'resources.events: Unrecognized key: "shrinkWarn"',
    ],
    ['a check of another dataset', { olderFilingsWarnPercent: 1 }, ': Unrecognized key: "olderFilingsWarnPercent"'],
    ['a negative threshold', { upcomingLostFailPercent: -1 }, 'upcomingLostFailPercent: Too small: expected number to be >=0'],
  ])('%s', (_, given, refused) => {
    const parsed = override.safeParse(given);
    expect(parsed.success ? null : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')).toBe(refused);
  });

  it('keeps every default the override does not set, per resource and per pair', () => {
    const defaults: z.infer<typeof schema> = { resources: { events: STEADY }, upcomingLostWarnPercent: 5, upcomingLostFailPercent: 20 };
    expect(withOverride(defaults, { resources: { events: { shrinkFailPercent: 70 } }, upcomingLostFailPercent: null })).toEqual({
      resources: { events: { ...STEADY, shrinkFailPercent: 70 } },
      upcomingLostWarnPercent: 5,
      upcomingLostFailPercent: null,
    });
    expect(withOverride(defaults, undefined)).toEqual(defaults);
  });
});
