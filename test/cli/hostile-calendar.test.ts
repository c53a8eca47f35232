import { beforeAll, describe, expect, it } from 'vitest';
import { baseline, buildCase, expectBoundedMemory, MARKER, newRejections, storeContains, type HostileBuild } from '../helpers/hostile.js';

/**
 * One hostile calendar source at a time, planted into the committed sample and built with the
 * real CLI: the bad file (or row) is named with its location, every other event is published,
 * nothing is expanded, memory stays bounded.
 */

let sample: HostileBuild;
beforeAll(async () => {
  sample = await baseline('calendar');
  expect(sample.records).toBeGreaterThan(100);
});

async function expectOthersPublished(build: HostileBuild, lost = 0): Promise<void> {
  expect(build.exitCode, build.stderr).toBe(0);
  expect(build.dataset.outcome).toBe('published');
  expect(build.records).toBe(sample.records - lost);
  expect(await storeContains(build.store, MARKER)).toBe(false);
  expect(await storeContains(build.store, 'root:')).toBe(false);
}

describe('provider XML exports', () => {
  it('rejects an export declaring an external entity at the declaration line', async () => {
    const build = await buildCase('provider-xml-external-entity');
    await expectOthersPublished(build);
    expect(await newRejections(build, 'calendar')).toEqual([
      { source: 'calendar/provider/ff_hostile.xml', location: 'line 3', reason: 'entity declarations are not allowed' },
    ]);
  });

  it('rejects an export nested 50,000 deep with the depth limit', async () => {
    const build = await buildCase('provider-xml-deep-nesting', 'measured');
    await expectOthersPublished(build);
    expectBoundedMemory(build);
    expect(await newRejections(build, 'calendar')).toEqual([
      { source: 'calendar/provider/ff_hostile.xml', location: 'line 2', reason: 'elements nested deeper than 100 levels' },
    ]);
  });
});

describe('YAML alias bombs', () => {
  it('rejects a curated .yaml holding one, and keeps every other file', async () => {
    const build = await buildCase('calendar-yaml-alias-bomb', 'measured');
    await expectOthersPublished(build);
    expectBoundedMemory(build);
    expect(await newRejections(build, 'calendar')).toEqual([
      {
        source: 'calendar/bomb.yaml',
        location: 'file',
        reason: 'not valid YAML: more than 100 alias expansions (a "billion laughs" document is refused, not expanded)',
      },
    ]);
  });

  it('rejects a sidecar holding one, naming the file it describes as not ingested', async () => {
    const build = await buildCase('sidecar-alias-bomb', 'measured');
    await expectOthersPublished(build);
    expectBoundedMemory(build);
    expect(await newRejections(build, 'calendar')).toEqual([
      {
        source: 'calendar/extra.csv.meta.yaml',
        location: 'file',
        reason:
          'not valid YAML: more than 100 alias expansions (a "billion laughs" document is refused, not expanded); calendar/extra.csv was not ingested',
      },
    ]);
  });
});

describe('curated CSV with a stray quote', () => {
  it('rejects only row 3 when its opening quote is never closed', async () => {
    const build = await buildCase('csv-unclosed-quote');
    await expectOthersPublished(build, 1);
    expect(await newRejections(build, 'calendar')).toEqual([
      { source: 'calendar/activity.csv', location: 'row 3', reason: 'not valid CSV: a quote is opened and never closed on this line' },
    ]);
  });

  it('rejects only row 3 when a quote sits inside an unquoted field', async () => {
    const build = await buildCase('csv-quote-inside-field');
    await expectOthersPublished(build, 1);
    expect(await newRejections(build, 'calendar')).toEqual([
      {
        source: 'calendar/activity.csv',
        location: 'row 3',
        reason: expect.stringMatching(/^not valid CSV: Invalid Opening Quote: a quote is found on field 0/),
      },
    ]);
  });
});

describe('dates', () => {
  it('rejects an event dated in year 0000', async () => {
    const build = await buildCase('calendar-year-0000');
    await expectOthersPublished(build);
    expect(await newRejections(build, 'calendar')).toEqual([
      {
        source: 'calendar/typo.csv',
        location: 'row 2',
        reason: expect.stringMatching(/^year 0 is outside 1900-2199 in "0000-\d\d-\d\d"$/),
      },
    ]);
  });
});
