import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARAMETERS } from '../../src/serve/schemas/parameter-schemas.js';
import { get, type RunningServer, startServer, TestClock } from './helpers/harness.js';
import { makeStore } from './helpers/test-store.js';

const NOW = new Date('2026-11-22T12:00:00.000Z');
let server: RunningServer;
let doc: any;
let etag: string;

beforeAll(async () => {
  const { root } = await makeStore(NOW, ['articles']);
  server = await startServer(root, new TestClock(NOW));
  const answer = await get(server.base, '/v1/openapi.json');
  expect(answer.status).toBe(200);
  expect(answer.headers.get('x-request-id')).toMatch(/^req_/);
  doc = answer.body;
  etag = answer.headers.get('etag') as string;
});
afterAll(() => server.close());

describe('/v1/openapi.json', () => {
  it('is served without a key and accepted by an OpenAPI 3.1 validator', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    // The validator does refuse a broken description, so the pass above means something.
    const { info: _info, ...withoutInfo } = doc;
    expect((await new Validator().validate(withoutInfo)).valid).toBe(false);
  });

  it('describes the seven Profile A operations with their scopes and every error status', () => {
    const operations = Object.entries(doc.paths).map(([path, item]: [string, any]) => [path, item.get.operationId, item.get.security[0].bearerAuth[0]]);
    expect(operations).toEqual([
      ['/v1/articles', 'listArticles', 'articles:read'],
      ['/v1/articles/{slug}', 'getArticle', 'articles:read'],
      ['/v1/economic-calendar', 'listEconomicCalendar', 'calendar:read'],
      ['/v1/smart-money/investors', 'listSmartMoneyInvestors', 'smart-money:read'],
      ['/v1/smart-money/investors/{slug}', 'getSmartMoneyInvestor', 'smart-money:read'],
      ['/v1/smart-money/consensus', 'listSmartMoneyConsensus', 'smart-money:read'],
      ['/v1/smart-money/trades', 'listSmartMoneyTrades', 'smart-money:read'],
    ]);
    for (const item of Object.values(doc.paths) as any[]) {
      expect(Object.keys(item.get.responses)).toEqual(['200', '304', '400', '401', '403', '404', '429', '500', '503']);
      expect(item.get.responses['400'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
    }
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('names the given envelopes in components and builds them from the served schemas', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining([
        'ArticleListEnvelope',
        'ArticleEnvelope',
        'EconomicCalendarListEnvelope',
        'SmartMoneyInvestorListEnvelope',
        'SmartMoneyInvestorDetailEnvelope',
        'SmartMoneyConsensusListEnvelope',
        'SmartMoneyTradeListEnvelope',
        'ErrorEnvelope',
      ]),
    );
    expect(doc.components.schemas.ArticleListEnvelope.properties.data.items).toEqual({ $ref: '#/components/schemas/ArticleSummary' });
    expect(doc.components.schemas.ArticleSummary.properties.content).toBeUndefined();
    expect(doc.components.schemas.Article.properties.content).toEqual({ type: 'string' });
    const calendar = doc.paths['/v1/economic-calendar'].get.parameters;
    const required = calendar.filter((p: any) => p.required).map((p: any) => p.name);
    expect(required).toEqual(['from', 'to']);
    const limit = doc.paths['/v1/smart-money/consensus'].get.parameters.find((p: any) => p.name === 'limit');
    const declared = PARAMETERS.listSmartMoneyConsensus.properties as Record<string, Record<string, unknown>>;
    const { description: _d, ...served } = declared.limit!;
    expect(limit.schema).toEqual(served);
    const slug = doc.paths['/v1/articles/{slug}'].get.parameters[0];
    expect(slug).toMatchObject({ in: 'path', required: true, schema: { maxLength: 200, pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$' } });
  });

  it('answers 304 to its own ETag', async () => {
    const again = await get(server.base, '/v1/openapi.json', { 'if-none-match': etag });
    expect(again.status).toBe(304);
  });
});
