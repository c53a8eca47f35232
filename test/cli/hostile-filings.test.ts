import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  baseline,
  buildCase,
  expectBoundedMemory,
  MARKER,
  MiB,
  newNotes,
  newRejections,
  published,
  storeContains,
  type HostileBuild,
} from '../helpers/hostile.js';
import { writeLongLineDatasetZip } from '../helpers/long-line-zip.js';
import { DATASET_FIXTURE } from '../helpers/hostile-inputs.js';
import yauzl from 'yauzl';

/**
 * One hostile filing source at a time, planted into the committed sample and built with the real
 * CLI (smart-money): the bad file is named with its location, every other filing is published,
 * nothing is expanded, and time (the build's timeout) and memory stay bounded.
 */

let sample: HostileBuild;
beforeAll(async () => {
  sample = await baseline('smart-money');
  expect(sample.records).toBeGreaterThan(100);
});

async function expectOthersPublished(build: HostileBuild): Promise<void> {
  expect(build.exitCode, build.stderr).toBe(0);
  expect(build.dataset.outcome).toBe('published');
  expect(build.records).toBe(sample.records);
  expect(await storeContains(build.store, MARKER)).toBe(false);
  expect(await storeContains(build.store, 'root:')).toBe(false);
}

const PLANTED_FOLDER = 'filings/edgar/9000001/0009000001-26-000001/primary_doc.xml';
const ZIP = 'filings/datasets/2026q3_form13f.zip';

/** Each member's uncompressed size, as the ZIP's central directory declares it. */
async function memberSizes(file: string): Promise<Record<string, number>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true }, (error, opened) => (error ? reject(error) : resolve(opened))),
  );
  const sizes: Record<string, number> = {};
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      sizes[entry.fileName] = entry.uncompressedSize;
      zip.readEntry();
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  zip.close();
  return sizes;
}

/** The fixture data set's filings were read: each one gets its value-unit note. */
function datasetRead(notes: { source: string; message: string }[], source: string): boolean {
  return notes.some((note) => note.source === source && note.message.startsWith('value unit:'));
}

describe('EDGAR XML', () => {
  it('rejects a primary_doc.xml declaring an external entity at the declaration line', async () => {
    const build = await buildCase('primary-doc-external-entity');
    await expectOthersPublished(build);
    expect(await newRejections(build, 'smart-money')).toEqual([
      { source: PLANTED_FOLDER, location: 'line 2', reason: 'entity declarations are not allowed' },
    ]);
  });

  it('rejects a primary_doc.xml nested 50,000 deep with the depth limit', async () => {
    const build = await buildCase('primary-doc-deep-nesting', 'measured');
    await expectOthersPublished(build);
    expectBoundedMemory(build);
    const xml = await readFile(path.join(build.sources, PLANTED_FOLDER), 'utf8');
    const line = xml.slice(0, xml.indexOf('<x>')).split('\n').length;
    expect(await newRejections(build, 'smart-money')).toEqual([
      { source: PLANTED_FOLDER, location: `line ${line}`, reason: 'elements nested deeper than 100 levels' },
    ]);
  });

  it('rejects a cover page dated in year 0026', async () => {
    const build = await buildCase('filing-year-0026');
    await expectOthersPublished(build);
    expect(await newRejections(build, 'smart-money')).toEqual([
      {
        source: PLANTED_FOLDER,
        location: 'headerData/filerInfo/periodOfReport',
        reason: 'periodOfReport "09-30-0026": year 26 is outside 1900-2199',
      },
    ]);
  });
});

describe('EDGAR full submissions', () => {
  it('reads a submission with 100,000 DOCUMENT blocks in linear time (within the build timeout)', async () => {
    const build = await buildCase('submission-100k-documents', 'measured');
    await expectOthersPublished(build);
    expectBoundedMemory(build);
    expect(await newRejections(build, 'smart-money')).toEqual([]);
  });

  it('names the real line of a misplaced </XML>, in a sentence', async () => {
    const build = await buildCase('submission-misplaced-xml-close');
    await expectOthersPublished(build);
    const file = 'filings/edgar/1542392/0001542392-26-000999.txt';
    const lines = (await readFile(path.join(build.sources, file), 'utf8')).split('\n');
    const open = lines.indexOf('<XML>') + 1;
    const close = lines.indexOf('</XML>') + 1;
    expect(close).toBe(open + 1);
    expect(await newRejections(build, 'smart-money')).toEqual([
      {
        source: file,
        location: `line ${close}`,
        reason: `a misplaced </XML>: the <XML> of line ${open} is closed on line ${close} before any XML`,
      },
    ]);
  });

  it('reads a .nc submission whose lines end in a bare CR like its LF copy', async () => {
    const build = await buildCase('submission-bare-cr');
    await expectOthersPublished(build);
    expect(await newRejections(build, 'smart-money')).toEqual([]);
    const { manifest } = await published(build.store, 'smart-money', 'investors');
    expect(manifest.sources.map((source) => source.path)).toContain('filings/edgar/1542392/0001542392-26-000174.nc');
  });
});

describe('the investor registry', () => {
  it('fails the dataset, naming filings/investors.yaml, when it holds an alias bomb', async () => {
    const build = await buildCase('investors-yaml-alias-bomb', 'measured');
    expect(build.exitCode).toBe(2);
    expect(build.dataset.outcome).toBe('failed');
    expect(build.dataset.reason).toBe(
      'could not read sources: filings/investors.yaml: not valid YAML: more than 100 alias expansions (a "billion laughs" document is refused, not expanded)',
    );
    expectBoundedMemory(build);
    expect(await readdir(build.store)).not.toContain('bundles');
  });
});

describe('Form 13F data set ZIPs', () => {
  it('rejects a ZIP whose INFOTABLE.tsv inflates to one 1 GiB line, in bounded memory, naming zip, member and line', async () => {
    // The case's ZIP (about 1 MB), written without deflating the gigabyte: see long-line-zip.ts.
    const build = await buildCase('dataset-zip-1gib-line', 'measured', [], (sources) =>
      writeLongLineDatasetZip(path.join(sources, ZIP), DATASET_FIXTURE, 1024 * MiB),
    );
    const zip = await stat(path.join(build.sources, ZIP));
    expect(zip.size).toBeLessThan(2 * MiB);
    expect(await memberSizes(path.join(build.sources, ZIP))).toMatchObject({ '2026q3_form13f/INFOTABLE.tsv': 1024 * MiB });
    await expectOthersPublished(build);
    expectBoundedMemory(build, 300 * MiB);
    expect((await newRejections(build, 'smart-money')).filter((r) => r.source === ZIP)).toEqual([
      {
        source: ZIP,
        location: 'line 1',
        reason: expect.stringMatching(
          /^data set not read: filings\/datasets\/2026q3_form13f\.zip!2026q3_form13f\/INFOTABLE\.tsv: line 1 is longer than 1 MiB \(at least \d+ bytes read\)$/,
        ),
      },
    ]);
  });

  it('refuses a member declaring an inflated size above the cap before inflating it', async () => {
    const build = await buildCase('dataset-zip-member-too-large', 'measured');
    await expectOthersPublished(build);
    expectBoundedMemory(build);
    expect((await newRejections(build, 'smart-money')).filter((r) => r.source === ZIP)).toEqual([
      {
        source: ZIP,
        location: '2026q3_form13f/INFOTABLE.tsv',
        reason: `data set not read: ${ZIP}!2026q3_form13f/INFOTABLE.tsv inflates to 4026531840 bytes, more than the 2 GiB a data set member may be`,
      },
    ]);
  });

  it('skips members named with ../ (never reading them) and reads the rest of the ZIP', async () => {
    const build = await buildCase('dataset-zip-dotdot-names');
    await expectOthersPublished(build);
    const notes = await newNotes(build, 'smart-money');
    expect(notes).toContainEqual({
      source: ZIP,
      message: '2 member(s) with an unsafe path skipped, never read or extracted: "../../evil.tsv", "../../xx/INFOTABLE.tsv"',
    });
    expect(datasetRead(notes, ZIP)).toBe(true);
  });

  it('refuses a ZIP with 100,000 members from its directory count, without listing them', async () => {
    const build = await buildCase('dataset-zip-100k-members', 'measured');
    await expectOthersPublished(build);
    expectBoundedMemory(build);
    expect(await newRejections(build, 'smart-money')).toEqual([
      { source: ZIP, location: 'file', reason: 'data set not read: 100004 members, more than the 1000 a data set ZIP may hold' },
    ]);
    expect(datasetRead(await newNotes(build, 'smart-money'), ZIP)).toBe(false);
  });

  it('follows filings/datasets/2026q3 as a symlink to a folder of TSVs, recording the resolved paths', async () => {
    const build = await buildCase('datasets-symlink-folder');
    await expectOthersPublished(build);
    const notes = await newNotes(build, 'smart-money');
    expect(notes).toContainEqual({
      source: 'filings/datasets/2026q3',
      message: `symlink followed to ${path.join(build.outside, '2026q3')}`,
    });
    expect(datasetRead(notes, 'filings/datasets/2026q3')).toBe(true);
    const { manifest } = await published(build.store, 'smart-money', 'investors');
    const resolved = path.join(build.outside, '2026q3/INFOTABLE.tsv');
    const bytes = await readFile(resolved);
    expect(manifest.sources).toContainEqual({
      path: 'filings/datasets/2026q3/INFOTABLE.tsv',
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      resolvedPath: resolved,
    });
  });
});
