import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { formatZodIssues, zodPath } from '../../src/lib/zod-issues.js';

const Keys = z.object({ keys: z.array(z.object({ id: z.string(), tier: z.enum(['free', 'member']) })) });

describe('formatZodIssues', () => {
  it('names every failing field, array indexes in brackets', () => {
    const result = Keys.safeParse({
      keys: [
        { id: 'a', tier: 'free' },
        { id: 7, tier: 'gold' },
      ],
    });
    expect(result.success).toBe(false);
    expect(formatZodIssues(result.error!)).toBe(
      'keys[1].id: Invalid input: expected string, received number; keys[1].tier: Invalid option: expected one of "free"|"member"',
    );
  });

  it('names the value itself by root, and a field of something larger by field', () => {
    expect(formatZodIssues(Keys.safeParse(null).error!, undefined, '(top level)')).toBe(
      '(top level): Invalid input: expected object, received null',
    );
    expect(formatZodIssues(z.string().safeParse(1).error!, 'attribution')).toBe(
      'attribution: Invalid input: expected string, received number',
    );
  });

  it('writes a path the way the messages do', () => {
    expect(zodPath([])).toBe('');
    expect(zodPath([0])).toBe('[0]');
    expect(zodPath(['investors', 3, 'name'])).toBe('investors[3].name');
    expect(zodPath([2, 'x'], 'rows')).toBe('rows[2].x');
  });
});
