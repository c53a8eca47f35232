import fastJson from 'fast-json-stringify';
import { describe, expect, it } from 'vitest';
import { ALL_OPERATIONS } from '../../src/serve/app.js';
import type { JsonSchema } from '../../src/serve/parameter-validation.js';
import { compileResponseSerializer } from '../../src/serve/response-serializer.js';
import { canonicalJson } from '../../src/publish/canonical-json.js';
import { StoredJson } from '../../src/serve/stored-json.js';
import { articles, investors } from './helpers/records.js';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const schemaOf = (operationId: string): JsonSchema => ALL_OPERATIONS.find((op) => op.operationId === operationId)!.response;
const uncached = (schema: JsonSchema) => fastJson(schema as unknown as fastJson.Schema) as (value: unknown) => string;

const listEnvelope = (data: unknown[]) => ({
  data,
  page: { limit: 3, nextCursor: 'c1' },
  snapshot: { id: 'articles-20261122T120000Z-0123456789ab', generatedAt: NOW.toISOString() },
  requestId: 'req_000000000000000000000001',
});

describe('response serializer', () => {
  it('writes the same bytes as serializing the whole envelope, first time and from its cache', () => {
    const records = articles(NOW).slice(0, 3);
    const cases: Array<[string, unknown]> = [
      ['listArticles', listEnvelope(records)],
      ['getArticle', { data: records[0], snapshot: { id: 's', generatedAt: NOW.toISOString() }, requestId: 'req_x' }],
      ['getSmartMoneyInvestor', { data: investors()[0], snapshot: { id: 's', generatedAt: NOW.toISOString() }, requestId: 'req_y' }],
      [
        'b.listArticles',
        {
          data: [
            {
              slug: 'a',
              title: 'T "quoted"',
              description: 'd',
              category: 'c',
              author: 'x',
              image: 'i.jpg',
              region: 'us',
              date: '2026-11-22',
            },
          ],
          pagination: { total: 1, limit: 20, offset: 0 },
        },
      ],
      ['listArticles', listEnvelope([])],
    ];
    for (const [operationId, envelope] of cases) {
      const cached = compileResponseSerializer(schemaOf(operationId));
      const expected = uncached(schemaOf(operationId))(envelope);
      expect(String(cached(envelope)), operationId).toBe(expected);
      expect(String(cached(envelope)), `${operationId}, again`).toBe(expected);
    }
  });

  it('serializes a served record once per schema, and a new envelope around it each time', () => {
    const serialize = compileResponseSerializer(schemaOf('listArticles'));
    let reads = 0;
    const record = { ...articles(NOW)[0]! };
    const title = record.title;
    Object.defineProperty(record, 'title', {
      enumerable: true,
      get: () => {
        reads += 1;
        return title;
      },
    });
    const first = JSON.parse(String(serialize(listEnvelope([record]))));
    const second = JSON.parse(String(serialize({ ...listEnvelope([record]), requestId: 'req_second' })));
    expect(reads).toBe(1);
    expect(second.data).toEqual(first.data);
    expect(second.requestId).toBe('req_second');
  });

  it('still leaves out every field its schema does not list', () => {
    const serialize = compileResponseSerializer(schemaOf('listArticles'));
    const leaky = { ...articles(NOW)[0]!, internalNote: 'never served' };
    const body = String(serialize(listEnvelope([leaky])));
    expect(body).not.toContain('internalNote');
    expect(JSON.parse(body).data[0]).not.toHaveProperty('content');
  });
  it('writes a record stored as JSON (a serving index row) as its stored bytes, for lists and single records', () => {
    const { positions: _positions, ...investor } = investors()[0]!;
    const stored = canonicalJson(investor);
    const envelope = listEnvelope([new StoredJson(stored), new StoredJson(stored)]);
    const list = String(compileResponseSerializer(schemaOf('listSmartMoneyInvestors'))(envelope));
    expect(list.startsWith(`{"data":[${stored},${stored}],`)).toBe(true);
    // The same content as the schema's serializer would write from the parsed record; only key order may differ.
    expect(JSON.parse(list)).toEqual(JSON.parse(uncached(schemaOf('listSmartMoneyInvestors'))(listEnvelope([investor, investor]))));
    const detail = canonicalJson(investors()[0]!);
    const single = { data: new StoredJson(detail), snapshot: { id: 's', generatedAt: NOW.toISOString() }, requestId: 'req_z' };
    expect(String(compileResponseSerializer(schemaOf('getSmartMoneyInvestor'))(single))).toBe(
      `{"data":${detail},"snapshot":{"id":"s","generatedAt":"${NOW.toISOString()}"},"requestId":"req_z"}`,
    );
  });
});
