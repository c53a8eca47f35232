import { describe, expect, it } from 'vitest';
import { boundHeapGrowth, DEFAULT_HEAP_GROWTH_PERCENT } from '../../src/lib/heap-growth.js';
import { runCli } from '../helpers/cli.js';

describe('boundHeapGrowth', () => {
  it('bounds growth by the default percent, by PDSNAP_HEAP_GROWTH_PERCENT, and leaves V8 alone at 0', () => {
    expect(boundHeapGrowth({})).toBe(DEFAULT_HEAP_GROWTH_PERCENT);
    expect(boundHeapGrowth({ PDSNAP_HEAP_GROWTH_PERCENT: '' })).toBe(DEFAULT_HEAP_GROWTH_PERCENT);
    expect(boundHeapGrowth({ PDSNAP_HEAP_GROWTH_PERCENT: '25' })).toBe(25);
    expect(boundHeapGrowth({ PDSNAP_HEAP_GROWTH_PERCENT: '0' })).toBe(0);
  });

  it.each(['-1', '1.5', 'fifty', '1001'])('refuses PDSNAP_HEAP_GROWTH_PERCENT=%s, naming the variable and the value', (value) => {
    expect(() => boundHeapGrowth({ PDSNAP_HEAP_GROWTH_PERCENT: value })).toThrow(
      `PDSNAP_HEAP_GROWTH_PERCENT must be a whole number from 0 to 1000 (got "${value}")`,
    );
  });

  it('makes build stop with a usage error (exit 3) before anything is read or written', async () => {
    const result = await runCli(['build', '--store', '/nonexistent/pdsnap-store', '--now', '2026-11-22T12:00:00.000Z'], {
      env: { PDSNAP_HEAP_GROWTH_PERCENT: 'lots' },
    });
    expect(result.exitCode).toBe(3);
    expect(String(result.stderr)).toContain('PDSNAP_HEAP_GROWTH_PERCENT must be a whole number from 0 to 1000 (got "lots")');
  });
});
