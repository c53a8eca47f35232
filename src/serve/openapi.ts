import type { DatasetName } from '../model/dataset.js';
import type { Operation } from './operation.js';
import { PROFILE_DESCRIPTIONS } from './openapi-profiles.js';
import type { JsonSchema } from './parameter-validation.js';
import type { Profile } from './profile.js';
import {
  PROFILE_A_ENVELOPES,
  profileAEnvelope,
  profileBListEnvelope,
  profileBSingleEnvelope,
  type ProfileAEnvelopeName,
} from './schemas/envelopes.js';
import { RECORD_EXAMPLES } from './schemas/record-examples.js';
import { RECORD_SCHEMAS, type RecordName, type SchemaRef } from './schemas/record-schemas.js';

export interface OpenApiOptions {
  /** Base of error docsUrls, the license and the contact page. */
  docsUrl: string;
  /** Where clients reach this deployment: the document's `servers` (serve --public-url). */
  publicUrl: string;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const recordRef: SchemaRef = (name: RecordName) => ref(name);
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

const TAGS: Readonly<Record<DatasetName, { name: string; description: string }>> = {
  articles: { name: 'Articles', description: 'Licensed editorial articles with their rights and attribution.' },
  calendar: { name: 'Economic calendar', description: 'Curated economic release events with forecast, previous and actual values.' },
  'smart-money': {
    name: 'Smart Money',
    description: 'Institutional investors, consensus holdings and position changes from SEC Form 13F filings.',
  },
};

const CACHE_HEADERS = {
  ETag: {
    description:
      "Validator of the content: send it back in If-None-Match. A compressed answer's tag names its encoding (-br, -gzip) and is weak.",
    type: 'string',
  },
  'Cache-Control': {
    description:
      "private, max-age no later than the snapshot's freshUntil and no longer than the server's reload interval; no-store on errors.",
    type: 'string',
  },
  'Last-Modified': {
    description: 'When the snapshot was generated (for the region calendar: or the start of today, UTC, if later).',
    type: 'string',
  },
  'X-Request-Id': { description: 'Request identifier; in Profile A equal to requestId in the body.', type: 'string' },
  'Retry-After': { description: 'Seconds to wait before retrying.', type: 'integer' },
} as const;

/**
 * The OpenAPI 3.1 description of one profile, generated from the operations, parameter schemas,
 * record schemas and envelopes the server validates and serializes with (one source of truth).
 */
export function openApiDocument(profile: Profile, operations: readonly Operation[], options: OpenApiOptions): Record<string, unknown> {
  const described = PROFILE_DESCRIPTIONS[profile];
  const docsBase = options.docsUrl.replace(/\/+$/, '');
  const ops = operations.filter((o) => o.profile === profile);
  const limitHeaderNames = Object.keys(described.limitHeaders);
  const headersOf = (...names: string[]) =>
    Object.fromEntries(['X-Request-Id', ...limitHeaderNames, ...names].map((n) => [n, headerRef(n)]));

  const paths: Record<string, Record<string, unknown>> = {};
  const records = new Set<RecordName>();
  const schemas: Record<string, unknown> = {};
  for (const op of ops) {
    const { schema, example, record } = successBody(op);
    records.add(record);
    const responses: Record<string, unknown> = {
      '200': {
        description: op.summary,
        headers: headersOf('ETag', 'Cache-Control', 'Last-Modified'),
        content: { 'application/json': { schema, example } },
      },
      '304': {
        description: 'Not modified: If-None-Match matched the ETag (no body).',
        headers: headersOf('ETag', 'Cache-Control', 'Last-Modified'),
      },
    };
    for (const error of described.errors) {
      const examples = Object.fromEntries(
        error.codes.map(([code, message]) => [code, { summary: code, value: described.errorExample(code, message, docsBase) }]),
      );
      responses[error.status] = {
        description: `${error.description}. Codes: ${error.codes.map(([code]) => code).join(', ')}.`,
        headers: headersOf('Cache-Control', ...(error.status === '429' || error.status === '503' ? ['Retry-After'] : [])),
        content: { 'application/json': { schema: ref('ErrorEnvelope'), examples } },
      };
    }
    paths[op.path.replace(/:([A-Za-z]+)/g, '{$1}')] = {
      get: {
        operationId: op.operationId,
        summary: op.summary,
        description: `${op.description}\n\nRequires the scope \`${op.scope}\`.`,
        tags: [TAGS[op.dataset].name],
        security: described.security,
        'x-required-scope': op.scope,
        parameters: parametersOf(op),
        responses,
      },
    };
    if (op.envelope) schemas[op.envelope] = profileAEnvelope(op.envelope, recordRef);
  }
  for (const name of records) schemas[name] = RECORD_SCHEMAS[name];
  schemas.ErrorEnvelope = described.errorEnvelope;

  const headers = Object.fromEntries(
    Object.entries({ ...CACHE_HEADERS, ...described.limitHeaders }).map(([name, { description, type }]) => [
      name,
      { description, schema: { type } },
    ]),
  );
  const datasets = [...new Set(ops.map((op) => op.dataset))];
  return {
    openapi: '3.1.0',
    info: {
      title: described.title,
      version: '1.0.0',
      summary: described.summary,
      description: `${described.description}\n\nEvery error is described at ${docsBase}/errors.`,
      contact: { name: 'API support', url: `${docsBase}/support` },
      license: { name: 'Proprietary: data licensed under the terms of service', url: `${docsBase}/terms` },
    },
    servers: [{ url: options.publicUrl.replace(/\/+$/, ''), description: 'This deployment' }],
    tags: datasets.map((dataset) => TAGS[dataset]),
    security: described.security,
    paths,
    components: { securitySchemes: described.securitySchemes, headers, schemas },
  };
}

/** The 200 body of an operation: its envelope as a $ref or inline, an example, and the record it holds. */
function successBody(op: Operation): { schema: JsonSchema; example: unknown; record: RecordName } {
  if (op.envelope) {
    const { kind, record } = PROFILE_A_ENVELOPES[op.envelope as ProfileAEnvelopeName];
    const example = RECORD_EXAMPLES[record];
    const snapshot = { id: `${op.dataset}-20261122T120000Z-98a547d0d452`, generatedAt: '2026-11-22T12:00:00.000Z' };
    const requestId = 'req_5f0c6a2e9b1d4c7a8e3f2b10';
    return {
      schema: ref(op.envelope),
      record,
      example:
        kind === 'list'
          ? {
              data: [example],
              page: {
                limit: 1,
                nextCursor:
                  'WzEsImFydGljbGVzLTIwMjYxMTIyVDEyMDAwMFoiLCJsaXN0QXJ0aWNsZXMiLCJUMVBOb1l3cnFnd0RWTHRmbWo3TDVlIiwxXQ.lDEHAefLTGeTh5fqH5QZLQ',
              },
              snapshot: op.dataset === 'calendar' ? { ...snapshot, coverageThrough: '2027-03-15' } : snapshot,
              requestId,
            }
          : { data: example, snapshot, requestId },
    };
  }
  if (!op.record) throw new Error(`${op.operationId}: a Profile B operation names the record it returns`);
  const example = RECORD_EXAMPLES[op.record];
  return op.kind === 'list'
    ? {
        schema: profileBListEnvelope(ref(op.record)),
        record: op.record,
        example: { data: [example], pagination: { total: 1, limit: 20, offset: 0 } },
      }
    : { schema: profileBSingleEnvelope(ref(op.record)), record: op.record, example: { data: example } };
}

/** Path and query parameters from the declared schemas; description and example move up to the parameter. */
function parametersOf(op: Operation): object[] {
  const list: object[] = [];
  const add = (where: 'path' | 'query', schema: JsonSchema | undefined, alwaysRequired: boolean) => {
    const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>;
    const required = (schema?.required ?? []) as string[];
    for (const [name, property] of Object.entries(properties)) {
      const { description, examples, ...rest } = property;
      list.push({
        name,
        in: where,
        required: alwaysRequired || required.includes(name),
        ...(description ? { description } : {}),
        schema: rest,
        ...(Array.isArray(examples) && examples.length > 0 ? { example: examples[0] } : {}),
      });
    }
  };
  add('path', op.params, true);
  add('query', op.querystring, false);
  return list;
}
