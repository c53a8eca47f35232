import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/lib/duration.js';

describe('parseDuration', () => {
  it.each([
    ['24h', 24 * 3_600_000],
    ['7d', 7 * 86_400_000],
    ['90m', 90 * 60_000],
    ['30s', 30_000],
    ['1d12h', 36 * 3_600_000],
    ['2d3h4m5s', ((2 * 24 + 3) * 60 * 60 + 4 * 60 + 5) * 1000],
    ['0s', 0],
    ['500ms', 500],
    ['1s500ms', 1500],
    ['90ms', 90],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '24', '2w', '1.5h', '-1h', '12h1d', '1h 30m', 'h', '24H', '7days', '500MS', 'ms', '5ms1s'])(
    'refuses "%s", naming the value',
    (text) => {
      expect(() => parseDuration(text)).toThrow(`"${text}" is not a duration`);
    },
  );
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [7 * 86_400_000, '7d'],
    [7 * 86_400_000 + 1, '7d'],
    [1_500, '1s'],
    [36 * 3_600_000, '1d 12h'],
    [-(2 * 3_600_000 + 60_000), '-2h 1m'],
  ])('writes %i ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('rounds a part of a second up for an age, so that 1 ms past a limit reads past it', () => {
    expect(formatDuration(7 * 86_400_000 + 1, 'up')).toBe('7d 1s');
    expect(formatDuration(7 * 86_400_000, 'up')).toBe('7d');
    expect(formatDuration(2 * 86_400_000 - 1)).toBe('1d 23h 59m 59s');
  });
});
