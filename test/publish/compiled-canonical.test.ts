import fc from 'fast-check';
import stableStringify from 'fast-json-stable-stringify';
import { describe, expect, it } from 'vitest';
import { DATASET_RESOURCES } from '../../src/model/dataset.js';
import { Investor } from '../../src/model/smart-money.js';
import { canonicalJson } from '../../src/publish/canonical-json.js';
import { compileCanonical, resourceSerializer } from '../../src/publish/compiled-canonical.js';
import { type ByteOut, type CanonicalEncoder, resourceEncoder } from '../../src/publish/compiled-canonical-bytes.js';

/** Any UTF-16 code units: lone surrogates, controls, quotes, backslashes, astral pairs, U+2028. */
const anyText = fc.oneof(
  fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 12 }).map((units) => String.fromCharCode(...units)),
  fc.constantFrom(
    '',
    '"',
    '\\',
    '\u0000',
    '\u001f',
    '\u007f',
    '\u2028\u2029',
    '\ud800',
    '\udfff',
    'a\ud83d',
    '\ud83d\ude00',
    'Société Générale',
    '三菱UFJ',
    '\t\n\r\b\f',
    '</script>',
  ),
  fc.string(),
);
const anyNumber = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(-0, 0, 1e21, 1e-7, 123456789012345680000, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 64, 5e-324, 0.1 + 0.2, 1.5),
  fc.integer(),
);

const position = fc.record({
  issuerName: anyText,
  titleOfClass: anyText,
  kind: anyText,
  shares: anyNumber,
  reportedValue: anyNumber,
  weight: anyNumber,
});
const investorFields = {
  slug: anyText,
  name: anyText,
  category: anyText,
  period: anyText,
  filedAt: anyText,
  reportedValueTotal: anyNumber,
  positionCount: anyNumber,
  positionsShown: anyNumber,
};
const attribution = fc.record({ source: anyText, url: anyText, text: anyText }, { requiredKeys: ['source', 'text'] });

/** Records of every record type, shaped as published but with hostile values. */
const RECORDS = {
  'articles/articles': fc.record({
    slug: anyText,
    title: anyText,
    description: anyText,
    category: anyText,
    locale: anyText,
    publishedAt: anyText,
    author: anyText,
    image: anyText,
    rights: fc.record({ license: anyText, holder: anyText, reuse: anyText }),
    attribution,
    content: anyText,
  }),
  'calendar/events': fc.record({
    id: anyText,
    eventName: anyText,
    scheduledAt: anyText,
    country: anyText,
    countryName: anyText,
    category: anyText,
    importance: anyText,
    forecastValue: anyText,
    previousValue: anyText,
    actualValue: anyText,
    verifiedAt: anyText,
    license: anyText,
    attribution,
  }),
  'smart-money/investors': fc.record({ ...investorFields, positions: fc.array(position, { maxLength: 4 }) }),
  'smart-money/consensus': fc.record({
    rank: anyNumber,
    issuerName: anyText,
    titleOfClass: anyText,
    holderCount: anyNumber,
    totalReportedValue: anyNumber,
    totalShares: anyNumber,
    topHolders: fc.array(anyText, { maxLength: 4 }),
  }),
  'smart-money/trades': fc.record({
    investorSlug: anyText,
    investorName: anyText,
    issuerName: anyText,
    titleOfClass: anyText,
    kind: anyText,
    action: anyText,
    period: anyText,
    previousPeriod: anyText,
    sharesBefore: anyNumber,
    sharesAfter: anyNumber,
    sharesChange: anyNumber,
    reportedValueBefore: anyNumber,
    reportedValueAfter: anyNumber,
  }),
} as const;

describe('compiled canonical serializers', () => {
  it('cover every resource of every dataset', () => {
    const resources = Object.entries(DATASET_RESOURCES).flatMap(([dataset, r]) => Object.keys(r).map((name) => `${dataset}/${name}`));
    expect(Object.keys(RECORDS).sort()).toEqual(resources.sort());
  });

  for (const [key, records] of Object.entries(RECORDS)) {
    const [dataset, resource] = key.split('/') as ['smart-money', 'trades'];
    it(`write ${key} records byte for byte as fast-json-stable-stringify`, () => {
      const serialize = resourceSerializer(dataset, resource);
      fc.assert(
        fc.property(records, (record) => {
          expect(serialize(record)).toBe(stableStringify(record));
        }),
        { numRuns: 400 },
      );
    });
  }

  for (const [key, records] of Object.entries(RECORDS)) {
    const [dataset, resource] = key.split('/') as ['smart-money', 'trades'];
    it(`encode ${key} records as the UTF-8 bytes of fast-json-stable-stringify, or leave them to it`, () => {
      const encode = resourceEncoder(dataset, resource)!;
      fc.assert(
        fc.property(records, fc.integer({ min: 1, max: 64 }), (record, room) => {
          // A small buffer that grows, as a line writer's does when a line does not fit.
          const encoded = encodeOrNull(encode, record, room);
          if (encoded !== null) expect(encoded.equals(Buffer.from(stableStringify(record), 'utf8'))).toBe(true);
          else expect(() => canonicalJson(record)).not.toThrow(); // left to the string path, which writes it
        }),
        { numRuns: 400 },
      );
    });
  }

  it('encode every safe integer digit by digit, and other numbers as String(n) writes them', () => {
    const encode = resourceEncoder('smart-money', 'trades')!;
    const base = { ...trade, sharesBefore: 0 };
    for (const n of [
      0,
      -0,
      9,
      10,
      2 ** 31 - 1,
      2 ** 31,
      99_999_999,
      100_000_000,
      199_999_999,
      9_999_999_999,
      12_345_678_900_000,
      2 ** 53 - 1,
      -(2 ** 53 - 1),
      -2_147_483_649,
      2 ** 53,
      1e21,
      0.1,
      5e-324,
    ]) {
      expect(encodeOrNull(encode, { ...base, sharesBefore: n }, 8)?.toString(), String(n)).toBe(
        stableStringify({ ...base, sharesBefore: n }),
      );
    }
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        expect(encodeOrNull(encode, { ...base, sharesBefore: n }, 1)?.toString()).toBe(stableStringify({ ...base, sharesBefore: n }));
      }),
      { numRuns: 2000 },
    );
  });

  it('encode every number of millionths between 0 and 1 (the weights) as String(n) writes them', () => {
    const encode = resourceEncoder('smart-money', 'investors')!;
    // One record, its weight changed each time: the number writer is what differs.
    const position = { issuerName: 'A', titleOfClass: '', kind: 'equity', shares: 0, reportedValue: 0, weight: 0 };
    const record = { ...investorLike, positions: [position] };
    const out: ByteOut = { buffer: Buffer.alloc(512), at: 0, reserve: () => {} };
    const prefix = '"weight":';
    let wrong = 0;
    for (let k = 1; k < 1_000_000; k++) {
      position.weight = k / 1_000_000;
      out.at = 0;
      if (!encode(record, out)) wrong += 1;
      const start = out.buffer.indexOf(prefix) + prefix.length;
      const written = out.buffer.toString('latin1', start, out.buffer.indexOf('}', start));
      if (written !== `${position.weight}`) wrong += 1;
    }
    expect(wrong).toBe(0);
  });

  it('write the investor summary of the serving index as fast-json-stable-stringify', () => {
    const serialize = compileCanonical(Investor);
    fc.assert(
      fc.property(fc.record(investorFields), (record) => {
        expect(serialize(record)).toBe(stableStringify(record));
      }),
      { numRuns: 400 },
    );
  });

  const investorLike = {
    slug: 'a',
    name: 'A',
    category: 'unclassified',
    period: '2026-09-30',
    filedAt: '2026-11-14',
    reportedValueTotal: 1,
    positionCount: 1,
    positionsShown: 1,
  };
  const trade = {
    investorSlug: 'a-b',
    investorName: 'Ä "quoted" \\ \u2028',
    issuerName: 'lone \ud800 surrogate',
    titleOfClass: '',
    kind: 'equity',
    action: 'sold',
    period: '2026-09-30',
    previousPeriod: '2026-06-30',
    sharesBefore: 1e21,
    sharesAfter: -0,
    sharesChange: -(2 ** 53 - 1),
    reportedValueBefore: 0.1 + 0.2,
    reportedValueAfter: 5e-324,
  };
  const trades = resourceSerializer('smart-money', 'trades');

  it('escape, keep -0 as 0 and big numbers in exponent form, as the generic path does', () => {
    const bytes = trades(trade);
    expect(bytes).toBe(stableStringify(trade));
    expect(bytes).toContain('"sharesAfter":0,');
    expect(bytes).toContain('"sharesBefore":1e+21');
    expect(bytes).toContain('"issuerName":"lone \\ud800 surrogate"');
    expect(bytes.startsWith('{"action":"sold","investorName"')).toBe(true);
  });

  it('leave out an absent optional field and keep a present one in its sorted place', () => {
    const events = resourceSerializer('calendar', 'events');
    const event = {
      id: 'evt-0123456789abcdef',
      eventName: 'CPI',
      scheduledAt: '2026-11-22T12:00:00.000Z',
      country: 'US',
      countryName: 'United States',
      category: 'inflation',
      importance: 'high',
      forecastValue: '',
      previousValue: '',
      actualValue: '',
      verifiedAt: '2026-11-22T12:00:00.000Z',
      license: 'CC-BY-4.0',
      attribution: { source: 'BLS', text: 'Bureau' },
    };
    expect(events(event)).toBe(stableStringify(event));
    expect(events(event)).toContain('"attribution":{"source":"BLS","text":"Bureau"}');
    const withUrl = { ...event, attribution: { text: 'Bureau', url: 'https://example.org/', source: 'BLS' } };
    expect(events(withUrl)).toContain('"attribution":{"source":"BLS","text":"Bureau","url":"https://example.org/"}');
  });

  it('hand a record of another shape to the generic path: extra keys, other types, nulls, holes', () => {
    for (const odd of [
      { ...trade, zz: 1, aa: [null, { b: 1, a: 2 }] },
      { ...trade, sharesBefore: '12' },
      { ...trade, titleOfClass: null },
      { ...trade, kind: { toJSON: () => 'equity' } },
    ]) {
      expect(serializeOrError(trades, odd)).toBe(canonicalJsonOrError(odd));
    }
    expect(trades({ ...trade, zz: 1 })).toBe(stableStringify({ ...trade, zz: 1 }));
    const consensus = resourceSerializer('smart-money', 'consensus');
    const sparse = {
      rank: 1,
      issuerName: 'X',
      titleOfClass: '',
      holderCount: 1,
      totalReportedValue: 1,
      totalShares: 1,
      // biome-ignore lint/suspicious/noSparseArray: a hole in an array is the case under test
      topHolders: ['a', , 'b'],
    };
    expect(consensus(sparse)).toBe(canonicalJsonOrError(sparse));
  });

  it('refuse what canonicalJson refuses, with its message', () => {
    for (const bad of [
      { ...trade, sharesBefore: Number.NaN },
      { ...trade, sharesAfter: Infinity },
      { ...trade, titleOfClass: undefined },
    ]) {
      expect(() => trades(bad)).toThrow(TypeError);
      expect(() => trades(bad)).toThrow(canonicalJsonOrError(bad));
    }
  });
});

/** What an encoder writes into a buffer of `room` bytes that grows as it asks, or null when it leaves the record to the string path. */
function encodeOrNull(encode: CanonicalEncoder, record: unknown, room: number): Buffer | null {
  const out: ByteOut = {
    buffer: Buffer.alloc(room),
    at: 0,
    reserve(bytes) {
      if (out.at + bytes <= out.buffer.length) return;
      const larger = Buffer.alloc(Math.max(out.at + bytes, 2 * out.buffer.length));
      out.buffer.copy(larger, 0, 0, out.at);
      out.buffer = larger;
    },
  };
  return encode(record, out) ? out.buffer.subarray(0, out.at) : null;
}

function serializeOrError(serialize: (value: unknown) => string, value: unknown): string {
  try {
    return serialize(value);
  } catch (error) {
    return (error as Error).message;
  }
}

function canonicalJsonOrError(value: unknown): string {
  try {
    return canonicalJson(value);
  } catch (error) {
    return (error as Error).message;
  }
}
