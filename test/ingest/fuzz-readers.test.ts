import fc from 'fast-check';
import { cp, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_SOURCES, writeForm13fZip } from '../helpers/hostile-inputs.js';
import { ingestArticles } from '../../src/ingest/articles/index.js';
import { ingestCalendar } from '../../src/ingest/calendar/index.js';
import { ingestFilings } from '../../src/ingest/filings/index.js';
import { forEachTsvLine } from '../../src/ingest/filings/tsv-rows.js';
import { parseJsonText, JsonTextError } from '../../src/ingest/json-text.js';
import { listFiles, UnreadableSource } from '../../src/ingest/source-files.js';
import { EARLIEST_YEAR, LATEST_YEAR } from '../../src/ingest/source-limits.js';
import { decodeSourceText } from '../../src/ingest/source-text.js';
import { readXml } from '../../src/ingest/xml-reader.js';
import { parseYamlText, YamlTextError } from '../../src/ingest/yaml-text.js';
import { Article } from '../../src/model/article.js';
import { CalendarEvent } from '../../src/model/calendar-event.js';
import { SILENT_PROGRESS } from '../../src/model/progress.js';

/**
 * Property-based fuzzing of every reader: random mutations of the committed sample files (bytes
 * deleted, duplicated, replaced, or tokens that matter to the formats inserted: quotes, brackets,
 * entity and DOCTYPE declarations, YAML aliases and tags, NUL, BOM, CR, huge numbers, year typos)
 * never make a reader throw anything but its own documented problem, and never let a record
 * through that fails its dataset's schema. Run counts are modest so the suite stays fast; a
 * failure prints the seed and the shrunk mutation list to replay it.
 */

const TOKENS = [
  '<',
  '>',
  '&',
  '"',
  "'",
  '\n',
  '\r',
  '\r\n',
  '\u0000',
  ':',
  '---',
  '---js',
  '[',
  ']',
  '{',
  '}',
  ',',
  '\t',
  '*a',
  '&a ',
  '!!js/function ',
  '<!ENTITY x "y">',
  '<!DOCTYPE x [',
  '<!DOCTYPE rss>',
  ']]>',
  '<![CDATA[',
  '<XML>',
  '</XML>',
  '<DOCUMENT>',
  '</DOCUMENT>',
  '\uFEFF',
  '0026',
  '0000',
  '9'.repeat(400),
  '\\u0000',
  '%x;',
  '&xxe;',
  '<x><x><x><x>',
  '\u00e9',
].map((token) => Buffer.from(token));

type Mutation =
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'insert'; at: number; bytes: Uint8Array }
  | { kind: 'duplicate'; at: number; length: number }
  | { kind: 'byte'; at: number; value: number };

const mutationArbitrary: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 40 }) }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.oneof(fc.constantFrom(...TOKENS), fc.uint8Array({ minLength: 1, maxLength: 8 })),
  }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 300 }) }),
  fc.record({ kind: fc.constant('byte' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
);
const mutationsArbitrary = fc.array(mutationArbitrary, { minLength: 1, maxLength: 6 });

function mutate(original: Buffer, mutations: Mutation[]): Buffer {
  let bytes = original;
  for (const mutation of mutations) {
    const at = bytes.length === 0 ? 0 : mutation.at % (bytes.length + 1);
    if (mutation.kind === 'delete') bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + mutation.length)]);
    else if (mutation.kind === 'insert') bytes = Buffer.concat([bytes.subarray(0, at), mutation.bytes, bytes.subarray(at)]);
    else if (mutation.kind === 'duplicate') bytes = Buffer.concat([bytes.subarray(0, at + mutation.length), bytes.subarray(at)]);
    else if (at < bytes.length) {
      bytes = Buffer.from(bytes);
      bytes[at] = mutation.value;
    }
  }
  return bytes;
}

const RUNS = 50;

/**
 * A private copy of one dataset's folder of the sample (or of some of its parts); each run
 * overwrites one file and puts it back.
 */
async function sampleFolder(
  folder: string,
  parts: string[] = [''],
): Promise<{ root: string; files: string[]; originals: Map<string, Buffer> }> {
  const root = await mkdtemp(path.join(tmpdir(), 'pdsnap-fuzz-'));
  for (const part of parts) await cp(path.join(SAMPLE_SOURCES, folder, part), path.join(root, folder, part), { recursive: true });
  const files = (await listFiles(path.join(root, folder))).filter((file) => !/\.(png|jpe?g)$/i.test(file));
  const originals = new Map(await Promise.all(files.map(async (file) => [file, await readFile(file)] as const)));
  return { root, files, originals };
}

async function withMutatedFile<T>(
  sample: Awaited<ReturnType<typeof sampleFolder>>,
  file: string,
  mutations: Mutation[],
  run: () => Promise<T>,
): Promise<T> {
  await writeFile(file, mutate(sample.originals.get(file)!, mutations));
  try {
    return await run();
  } finally {
    await writeFile(file, sample.originals.get(file)!);
  }
}

/**
 * What is wrong with one record, as "<what>: <problem>" lines. The checks of every record of a run
 * are gathered and asserted once: an expect() per field and record was most of this file's time.
 */
function problemsOf(what: string, checks: Array<[failed: boolean, problem: string]>): string[] {
  return checks.filter(([failed]) => failed).map(([, problem]) => `${what}: ${problem}`);
}

/**
 * The path of a string holding NUL in a record, or undefined. The test's own walk, not the
 * fieldWithNul of src/ that ingest relies on: asking the code under test would let a broken
 * fieldWithNul pass its own check.
 */
function nulIn(value: unknown, at = '(value)'): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? at : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    const found = nulIn(child, at === '(value)' ? key : `${at}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

const inYears = (instant: string) => {
  const year = Number(instant.slice(0, 4));
  return year >= EARLIEST_YEAR && year <= LATEST_YEAR;
};

describe('fuzzed article sources', () => {
  let sample: Awaited<ReturnType<typeof sampleFolder>>;
  beforeAll(async () => {
    // Every format, not every article: the registry, the feeds, the JSON articles and one Markdown
    // article per locale (each run ingests the whole folder, so a smaller one buys more runs' worth).
    const markdown = await Promise.all(
      ['en-US', 'ko-KR', 'ja-JP', 'zh-CN'].map(
        async (locale) => `${locale}/${(await readdir(path.join(SAMPLE_SOURCES, 'articles', locale))).sort()[0]}`,
      ),
    );
    sample = await sampleFolder('articles', ['sources.yaml', 'feeds', 'json', ...markdown]);
  });

  it('never throw out of ingest (but for an unreadable registry) and never produce an article that fails its schema', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), mutationsArbitrary, async (pick, mutations) => {
        const file = sample.files[pick % sample.files.length]!;
        await withMutatedFile(sample, file, mutations, async () => {
          let result;
          try {
            result = await ingestArticles(sample.root);
          } catch (error) {
            // The registry is the one file whose failure fails the dataset, by design, naming it.
            expect(error).toBeInstanceOf(UnreadableSource);
            expect((error as UnreadableSource).source).toBe('articles/sources.yaml');
            return;
          }
          const unclean = result.records.flatMap(({ record }) =>
            problemsOf(record.slug, [
              [!Article.safeParse(record).success, 'fails the Article schema'],
              [nulIn(record) !== undefined, `NUL in ${nulIn(record)}`],
              [!inYears(record.publishedAt), `publishedAt ${record.publishedAt}`],
            ]),
          );
          expect(unclean).toEqual([]);
          expect(result.rejections.filter((rejection) => rejection.source === '')).toEqual([]);
        });
      }),
      { numRuns: RUNS },
    );
  });
});

describe('fuzzed calendar sources', () => {
  let sample: Awaited<ReturnType<typeof sampleFolder>>;
  beforeAll(async () => {
    sample = await sampleFolder('calendar');
  });

  it('never throw out of ingest and never produce an event that fails its schema', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), mutationsArbitrary, async (pick, mutations) => {
        const file = sample.files[pick % sample.files.length]!;
        await withMutatedFile(sample, file, mutations, async () => {
          const result = await ingestCalendar(sample.root);
          const unclean = result.records.flatMap(({ record }) =>
            problemsOf(`${record.eventName} (${record.country})`, [
              [!CalendarEvent.safeParse({ ...record, id: 'evt-0000000000000000' }).success, 'fails the CalendarEvent schema'],
              [nulIn(record) !== undefined, `NUL in ${nulIn(record)}`],
              [
                !(inYears(record.scheduledAt) && inYears(record.verifiedAt)),
                `scheduledAt ${record.scheduledAt}, verifiedAt ${record.verifiedAt}`,
              ],
            ]),
          );
          expect(unclean).toEqual([]);
        });
      }),
      { numRuns: RUNS },
    );
  });
});

describe('fuzzed filing sources', () => {
  let sample: Awaited<ReturnType<typeof sampleFolder>>;
  beforeAll(async () => {
    // Every layout, not every filer: a full submission, filing folders (with and without a table), the registry.
    sample = await sampleFolder('filings', ['investors.yaml', 'edgar/1542392', 'edgar/1523000', 'edgar/1653245']);
    // A data set ZIP too, so its TSVs are fuzzed through the ZIP and line reader.
    const zip = path.join(sample.root, 'filings/datasets/2026q3_form13f.zip');
    await writeForm13fZip(zip);
    sample.files.push(zip);
    sample.originals.set(zip, await readFile(zip));
  });

  it('never throw out of ingest (but for an unreadable registry) and never keep a filing row that is not a clean holding', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), mutationsArbitrary, async (pick, mutations) => {
        const file = sample.files[pick % sample.files.length]!;
        await withMutatedFile(sample, file, mutations, async () => {
          let result;
          try {
            result = await ingestFilings(sample.root, SILENT_PROGRESS);
          } catch (error) {
            expect(error).toBeInstanceOf(UnreadableSource);
            expect((error as UnreadableSource).source).toBe('filings/investors.yaml');
            return;
          }
          const unclean = [...result.catalog.filings()].flatMap((filing) => [
            ...problemsOf(filing.accessionNumber, [
              [!/^\d{4}-\d{2}-\d{2}$/.test(filing.period), `period ${filing.period}`],
              [!(inYears(filing.period) && inYears(filing.filedAt)), `period ${filing.period}, filedAt ${filing.filedAt}`],
              [nulIn(filing) !== undefined, `NUL in ${nulIn(filing)}`],
            ]),
            ...[...result.catalog.rows(filing.accessionNumber)].flatMap((row, index) =>
              problemsOf(`${filing.accessionNumber} row ${index}`, [
                [!(Number.isSafeInteger(row.value) && row.value >= 0), `value ${row.value}`],
                [!(Number.isFinite(row.amount) && row.amount >= 0), `amount ${row.amount}`],
                [nulIn(row) !== undefined, `NUL in ${nulIn(row)}`],
              ]),
            ),
          ]);
          expect(unclean).toEqual([]);
        });
      }),
      { numRuns: RUNS },
    );
  });
});

describe('fuzzed text of the shared readers', () => {
  const samples = Promise.all(
    [
      'articles/feeds/harbor-wire.xml',
      'articles/feeds/hanbit-economy.atom',
      'calendar/provider/ff_calendar_thisweek.xml',
      'filings/edgar/1523000/0001523000-26-000137/infotable.xml',
      'articles/sources.yaml',
      'calendar/central-banks.yaml',
      'articles/feeds/sakura-markets.json',
      'calendar/releases.json',
    ].map((file) => readFile(path.join(SAMPLE_SOURCES, file))),
  );

  it('decodeSourceText, readXml, parseYamlText and parseJsonText return or throw only their own problem', async () => {
    const originals = await samples;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), mutationsArbitrary, (pick, mutations) => {
        const bytes = mutate(originals[pick % originals.length]!, mutations);
        const decoded = decodeSourceText(bytes, { xml: true });
        if (!decoded.ok) return;
        const xml = readXml(decoded.text, { attributes: true, rawElements: ['description'] });
        if (!xml.ok) expect(xml.line).toBeGreaterThanOrEqual(1);
        try {
          parseYamlText(decoded.text);
        } catch (error) {
          expect(error).toBeInstanceOf(YamlTextError);
        }
        try {
          parseJsonText(decoded.text);
        } catch (error) {
          expect(error).toBeInstanceOf(JsonTextError);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('forEachTsvLine splits any bytes, in any chunking, into the same lines as a whole-text split', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('a', 'b', '\t', '\n', '\r', '\r\n', 'é', ' '), { maxLength: 80 }),
        fc.integer({ min: 1, max: 7 }),
        async (pieces, chunkSize) => {
          const text = `H1\tH2\n${pieces.join('')}`;
          const bytes = Buffer.from(text);
          const chunks: Buffer[] = [];
          for (let at = 0; at < bytes.length; at += chunkSize) chunks.push(bytes.subarray(at, at + chunkSize));
          const seen: string[][] = [];
          await forEachTsvLine(Readable.from(chunks), (line) => {
            if ('fields' in line) seen.push(line.fields);
          });
          const expected = text
            .split(/\r\n|\r|\n/)
            .slice(1)
            .filter((line) => line.trim() !== '')
            .map((line) => line.split('\t'));
          expect(seen).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });
});
