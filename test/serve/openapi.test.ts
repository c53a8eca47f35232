import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARAMETERS } from '../../src/serve/schemas/parameter-schemas.js';
import { get, type RunningServer, startServer, TestClock } from './helpers/harness.js';
import { makeStore } from './helpers/test-store.js';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const PUBLIC_URL = 'https://api.pdsnap.test';
const BIN = path.resolve('node_modules/.bin');
let server: RunningServer;
const docs: Record<'A' | 'B', any> = { A: null, B: null };
const files: Record<'A' | 'B', string> = { A: '', B: '' };
let etag: string;

beforeAll(async () => {
  const { root } = await makeStore(NOW, ['articles']);
  server = await startServer(root, new TestClock(NOW), undefined, 0, { publicUrl: `${PUBLIC_URL}/` });
  const dir = await mkdtemp(path.join(tmpdir(), 'pdsnap-openapi-'));
  for (const [profile, url] of [
    ['A', '/v1/openapi.json'],
    ['B', '/api/v1/openapi.json'],
  ] as const) {
    const answer = await get(server.base, url);
    expect(answer.status, url).toBe(200);
    expect(answer.headers.get('x-request-id')).toMatch(/^req_/);
    docs[profile] = answer.body;
    files[profile] = path.join(dir, `profile-${profile.toLowerCase()}.json`);
    await writeFile(files[profile], JSON.stringify(answer.body));
    if (profile === 'A') etag = answer.headers.get('etag') as string;
  }
});
afterAll(() => server.close());

/** The linters as a developer runs them, on the documents the server served; quiet about updates and telemetry. */
const LINT_ENV = { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

async function redocly(file: string): Promise<{ errors: number; warnings: number; problems: unknown[] }> {
  const run = await execa(path.join(BIN, 'redocly'), ['lint', '--format=json', file], { reject: false, env: LINT_ENV });
  const report = JSON.parse(run.stdout);
  return { ...report.totals, problems: report.problems };
}

/** Spectral's findings per file (one run for all files: each start costs seconds). */
async function spectral(...lintFiles: string[]): Promise<Map<string, Array<{ code: string; severity: number; message: string }>>> {
  // .spectral.yaml at the repository root: extends spectral:oas (severity 0 = error, 1 = warning).
  const run = await execa(path.join(BIN, 'spectral'), ['lint', '--format=json', '--quiet', '--fail-severity=hint', ...lintFiles], {
    reject: false,
    env: LINT_ENV,
  });
  const results = JSON.parse(run.stdout === '' ? '[]' : run.stdout) as Array<{
    source: string;
    code: string;
    severity: number;
    message: string;
  }>;
  return new Map(lintFiles.map((file) => [file, results.filter((r) => path.resolve(r.source) === file)]));
}

describe('the OpenAPI descriptions of both profiles', () => {
  it('are served without a key and accepted by an OpenAPI 3.1 validator', async () => {
    for (const doc of [docs.A, docs.B]) {
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.info.version).toBe('1.0.0');
      const result = await new Validator().validate(doc);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
    }
    // The validator does refuse a broken description, so the pass above means something.
    const { info: _info, ...withoutInfo } = docs.A;
    expect((await new Validator().validate(withoutInfo)).valid).toBe(false);
  });

  it('pass Redocly (recommended) with 0 errors and 0 warnings', async () => {
    for (const profile of ['A', 'B'] as const) {
      const report = await redocly(files[profile]);
      expect(report.problems, `Profile ${profile}`).toEqual([]);
      expect([report.errors, report.warnings]).toEqual([0, 0]);
    }
    // The linter does report: the same document without servers and license fails.
    const broken = files.A.replace(/\.json$/, '-broken.json');
    const { servers: _s, ...rest } = docs.A;
    await writeFile(broken, JSON.stringify({ ...rest, info: { ...rest.info, license: undefined } }));
    const report = await redocly(broken);
    expect(report.errors + report.warnings).toBeGreaterThan(0);
  });

  it('pass Spectral (spectral:oas) with 0 errors and 0 warnings', async () => {
    // Scopes under a bearer scheme are what Spectral flagged before; it still does.
    const scoped = files.A.replace(/\.json$/, '-scoped.json');
    const paths = structuredClone(docs.A.paths);
    paths['/v1/articles'].get.security = [{ bearerAuth: ['articles:read'] }];
    await writeFile(scoped, JSON.stringify({ ...docs.A, paths }));
    const findings = await spectral(files.A, files.B, scoped);
    expect(findings.get(files.A), 'Profile A').toEqual([]);
    expect(findings.get(files.B), 'Profile B').toEqual([]);
    expect(findings.get(scoped)!.map((r) => r.code)).toContain('oas3-operation-security-defined');
  });

  it('name the server, tags, license and contact', () => {
    for (const doc of [docs.A, docs.B]) {
      expect(doc.servers).toEqual([{ url: PUBLIC_URL, description: 'This deployment' }]);
      expect(doc.info.license.url).toBe('https://docs.example.test/api/terms');
      expect(doc.info.contact.url).toBe('https://docs.example.test/api/support');
      const tagNames = doc.tags.map((t: any) => t.name);
      for (const item of Object.values(doc.paths) as any[]) expect(tagNames).toContain(item.get.tags[0]);
    }
    expect(docs.A.tags.map((t: any) => t.name)).toEqual(['Articles', 'Economic calendar', 'Smart Money']);
    expect(docs.B.tags.map((t: any) => t.name)).toEqual(['Articles', 'Economic calendar']);
  });

  it('describe the seven Profile A and three Profile B operations with their scopes, without OAuth scopes on key schemes', () => {
    const summary = (doc: any) =>
      Object.entries(doc.paths).map(([p, item]: [string, any]) => [p, item.get.operationId, item.get['x-required-scope']]);
    expect(summary(docs.A)).toEqual([
      ['/v1/articles', 'listArticles', 'articles:read'],
      ['/v1/articles/{slug}', 'getArticle', 'articles:read'],
      ['/v1/economic-calendar', 'listEconomicCalendar', 'calendar:read'],
      ['/v1/smart-money/investors', 'listSmartMoneyInvestors', 'smart-money:read'],
      ['/v1/smart-money/investors/{slug}', 'getSmartMoneyInvestor', 'smart-money:read'],
      ['/v1/smart-money/consensus', 'listSmartMoneyConsensus', 'smart-money:read'],
      ['/v1/smart-money/trades', 'listSmartMoneyTrades', 'smart-money:read'],
    ]);
    expect(summary(docs.B)).toEqual([
      ['/api/v1/articles', 'b.listArticles', 'articles:read'],
      ['/api/v1/articles/{slug}', 'b.getArticle', 'articles:read'],
      ['/api/v1/economic-calendar', 'b.listEconomicCalendar', 'calendar:read'],
    ]);
    expect(docs.A.components.securitySchemes).toEqual({ bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }) });
    expect(docs.B.components.securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      apiKeyAuth: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
    });
    for (const doc of [docs.A, docs.B]) {
      for (const item of Object.values(doc.paths) as any[]) {
        for (const requirement of item.get.security) for (const scopes of Object.values(requirement)) expect(scopes).toEqual([]);
        expect(item.get.description).toContain(`Requires the scope \`${item.get['x-required-scope']}\``);
      }
    }
  });

  it('give every operation and parameter a description and an example, and every error status its envelope and codes', () => {
    for (const [profile, doc] of Object.entries(docs)) {
      for (const item of Object.values(doc.paths) as any[]) {
        const op = item.get;
        expect(op.description.length, op.operationId).toBeGreaterThan(40);
        expect(op.responses['200'].content['application/json'].example, op.operationId).toBeDefined();
        for (const parameter of op.parameters) {
          expect(parameter.description, `${op.operationId} ${parameter.name}`).toBeTruthy();
          expect(parameter.example, `${op.operationId} ${parameter.name}`).toBeDefined();
        }
        expect(Object.keys(op.responses)).toEqual(['200', '304', '400', '401', '403', '404', '429', '500', '503']);
        for (const status of ['400', '401', '403', '404', '429', '500', '503']) {
          const content = op.responses[status].content['application/json'];
          expect(content.schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
          expect(Object.keys(content.examples).length).toBeGreaterThan(0);
        }
      }
      const codes = (status: string) =>
        Object.keys(doc.paths[Object.keys(doc.paths)[0]!].get.responses[status].content['application/json'].examples);
      expect(codes('400')).toEqual(profile === 'A' ? ['invalid_request', 'invalid_cursor'] : ['invalid_params', 'invalid_region']);
      expect(codes('401')).toEqual(profile === 'A' ? ['invalid_api_key'] : ['unauthorized', 'invalid_key']);
    }
  });

  it('carry examples that the served schemas accept', () => {
    for (const doc of [docs.A, docs.B]) {
      const ajv = new Ajv2020({ strict: false });
      addFormats.default(ajv);
      ajv.addSchema({ $id: 'doc', components: doc.components });
      for (const item of Object.values(doc.paths) as any[]) {
        const ok = item.get.responses['200'].content['application/json'];
        const schema = ok.schema.$ref
          ? { $ref: `doc${ok.schema.$ref}` }
          : JSON.parse(JSON.stringify(ok.schema).replaceAll('"#/components', '"doc#/components'));
        expect(ajv.validate(schema, ok.example), `${item.get.operationId}: ${ajv.errorsText()}`).toBe(true);
        for (const example of Object.values(item.get.responses['404'].content['application/json'].examples) as any[]) {
          expect(ajv.validate({ $ref: 'doc#/components/schemas/ErrorEnvelope' }, example.value)).toBe(true);
        }
      }
    }
  });

  it('names the given envelopes in components and builds them from the served schemas', () => {
    const doc = docs.A;
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
    expect(calendar.filter((p: any) => p.required).map((p: any) => p.name)).toEqual(['from', 'to']);
    const limit = doc.paths['/v1/smart-money/consensus'].get.parameters.find((p: any) => p.name === 'limit');
    const declared = PARAMETERS.listSmartMoneyConsensus.properties as Record<string, Record<string, unknown>>;
    const { description, examples, ...served } = declared.limit!;
    expect(limit).toEqual({
      name: 'limit',
      in: 'query',
      required: false,
      description,
      example: (examples as unknown[])[0],
      schema: served,
    });
    const slug = doc.paths['/v1/articles/{slug}'].get.parameters[0];
    expect(slug).toMatchObject({ in: 'path', required: true, schema: { maxLength: 200, pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$' } });
    // Profile B's records are its projections: no locale, no rights.
    expect(docs.B.components.schemas.ProfileBArticleListItem.properties.locale).toBeUndefined();
    expect(Object.keys(docs.B.components.schemas).sort()).toEqual([
      'ErrorEnvelope',
      'ProfileBArticleDetail',
      'ProfileBArticleListItem',
      'ProfileBCalendarEvent',
    ]);
  });

  it('answers 304 to its own ETag, compressed or not, and may be cached publicly', async () => {
    expect((await get(server.base, '/v1/openapi.json', { 'if-none-match': etag })).status).toBe(304);
    const compressed = await fetch(`${server.base}/api/v1/openapi.json`, { headers: { 'accept-encoding': 'br' } });
    expect(compressed.headers.get('content-encoding')).toBe('br');
    expect(compressed.headers.get('cache-control')).toBe('public, max-age=300');
    const tag = compressed.headers.get('etag') as string;
    expect(tag).toMatch(/^W\/".+-br"$/);
    expect((await fetch(`${server.base}/api/v1/openapi.json`, { headers: { 'if-none-match': tag, 'accept-encoding': 'br' } })).status).toBe(
      304,
    );
  });
});
