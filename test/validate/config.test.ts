import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/cli/config.js';
import { UsageError } from '../../src/cli/errors.js';
import { DEFAULT_DRIFT_THRESHOLDS } from '../../src/validate/drift.js';
import { DEFAULT_LIMITS } from '../../src/validate/limits.js';

describe('loadConfig', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'pdsnap-config-'));
  });

  it('uses the service defaults when no file is named and pdsnap.config.yaml is absent', async () => {
    expect(await loadConfig(undefined, dir)).toEqual({
      path: null,
      limits: DEFAULT_LIMITS,
      drift: DEFAULT_DRIFT_THRESHOLDS,
      paths: {},
      fetch: {
        form13fDatasets: [],
        caps: { maxResponseBytes: 1024 ** 3, maxDecodedBytes: 2 * 1024 ** 3 },
        timeouts: { connectMs: 10_000, idleMs: 30_000, totalMs: 1_800_000 },
        retries: 3,
      },
    });
  });

  it('reads fetch: the Form 13F data sets to keep, caps, timeouts and retries', async () => {
    await writeFile(
      path.join(dir, 'fetch.yaml'),
      'fetch:\n  form13fDatasets: [2024q1_form13f.zip, 01sep2026-30nov2026_form13f.zip]\n  maxResponseSize: 512MiB\n  maxDecodedSize: 1073741824\n  timeouts: { idle: 1m }\n  retries: 0\n',
    );
    expect((await loadConfig('fetch.yaml', dir)).fetch).toEqual({
      form13fDatasets: ['2024q1_form13f.zip', '01sep2026-30nov2026_form13f.zip'],
      caps: { maxResponseBytes: 512 * 1024 ** 2, maxDecodedBytes: 1024 ** 3 },
      timeouts: { connectMs: 10_000, idleMs: 60_000, totalMs: 1_800_000 },
      retries: 0,
    });
  });

  it('reads pdsnap.config.yaml from the working directory and overrides only what it names', async () => {
    await writeFile(path.join(dir, 'pdsnap.config.yaml'), 'freshness:\n  articles:\n    maxGenerationAgeDays: 10\n');
    const config = await loadConfig(undefined, dir);
    expect(config.path).toBe(path.join(dir, 'pdsnap.config.yaml'));
    expect(config.limits.articles).toEqual({ maxGenerationAgeDays: 10, maxLatestArticleAgeDays: 7 });
    expect(config.limits.calendar).toEqual(DEFAULT_LIMITS.calendar);
  });

  it('reads a JSON config named with --config', async () => {
    await writeFile(path.join(dir, 'limits.json'), JSON.stringify({ freshness: { 'smart-money': { maxQuarterAgeDays: 200 } } }));
    const config = await loadConfig('limits.json', dir);
    expect(config.limits['smart-money']).toEqual({ maxGenerationAgeDays: 14, maxQuarterAgeDays: 200 });
  });

  it.each([
    ['an unknown limit name', 'freshness:\n  articles:\n    maxAgeDays: 10\n', /freshness\.articles.*maxAgeDays/],
    ['an unknown dataset', 'freshness:\n  news:\n    maxGenerationAgeDays: 10\n', /news/],
    ['an unknown top-level key', 'limits: {}\n', /limits/],
    ['a negative limit', 'freshness:\n  calendar:\n    maxVerificationAgeDays: -1\n', /freshness\.calendar\.maxVerificationAgeDays/],
    ['a limit that is not a number', 'freshness:\n  calendar:\n    minCoverageDays: thirty\n', /minCoverageDays/],
    ['YAML that does not parse', 'freshness: [\n', /does not parse/],
    [
      'a data set name that is no ZIP file name',
      'fetch:\n  form13fDatasets: [../../etc/passwd]\n',
      /fetch\.form13fDatasets\[0\]: must be the file name of a data set ZIP/,
    ],
    ['a size in decimal units', 'fetch:\n  maxResponseSize: 1GB\n', /fetch\.maxResponseSize: "1GB" is not a size; write it like 512MiB/],
    ['a timeout that is no duration', 'fetch:\n  timeouts: { idle: 30 }\n', /fetch\.timeouts\.idle/],
    ['an unknown fetch setting', 'fetch:\n  userAgent: me\n', /userAgent/],
    [
      'a limit beyond ten years (MAX_SAFE_INTEGER days)',
      'freshness:\n  articles:\n    maxGenerationAgeDays: 9007199254740991\n',
      /invalid at freshness\.articles\.maxGenerationAgeDays: must be a whole number of days from 1 to 3650$/,
    ],
    [
      'a fractional limit',
      'freshness:\n  calendar:\n    minCoverageDays: 1.5\n',
      /freshness\.calendar\.minCoverageDays: must be a whole number of days from 0 to 3650/,
    ],
    [
      'a YAML alias bomb',
      `a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n`,
      /does not parse: more than 100 alias expansions/,
    ],
  ])('refuses a config with %s as a UsageError naming the file', async (_what, text, reason) => {
    await writeFile(path.join(dir, 'bad.yaml'), text);
    const failure = loadConfig('bad.yaml', dir);
    await expect(failure).rejects.toBeInstanceOf(UsageError);
    await expect(failure).rejects.toThrow(/config bad\.yaml/);
    await expect(failure).rejects.toThrow(reason);
  });

  it('refuses a named config file that does not exist instead of falling back to the defaults', async () => {
    await expect(loadConfig('missing.yaml', dir)).rejects.toThrow(/config missing\.yaml does not exist/);
  });
});
