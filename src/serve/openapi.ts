import { SCOPES } from './access/index.js';
import type { ErrorCode } from './api-error.js';
import type { Operation } from './operation.js';
import type { JsonSchema } from './parameter-validation.js';
import { PROFILE_A_ENVELOPES, PROFILE_A_ERROR_ENVELOPE, profileAEnvelope, type ProfileAEnvelopeName } from './schemas/envelopes.js';
import { PROFILE_A_RECORDS, RECORD_SCHEMAS, type RecordName, type SchemaRef } from './schemas/record-schemas.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const recordRef: SchemaRef = (name: RecordName) => ref(name);

const LIMIT_HEADERS: Record<string, string> = {
  'X-Request-Id': 'Request identifier; equal to error.requestId on errors.',
  'X-RateLimit-Limit': 'Maximum requests per minute for the tier.',
  'X-RateLimit-Remaining': 'Requests left in the current fixed 60-second window.',
  'X-RateLimit-Reset': 'Unix time in seconds at which the current window ends.',
  'X-Quota-Limit': 'Monthly request limit (the hard cap of the tier).',
  'X-Quota-Remaining': 'Included requests left this UTC month; 0 while in metered overage.',
  'X-Quota-Reset': 'Unix time in seconds at which the monthly quota resets (start of the next UTC month).',
};

const ERROR_RESPONSES: Array<[string, string, ErrorCode[]]> = [
  ['400', 'Invalid parameters or cursor', ['invalid_request', 'invalid_cursor']],
  ['401', 'API key missing or invalid', ['invalid_api_key']],
  ['403', 'API key lacks the required scope', ['insufficient_scope']],
  ['404', 'Requested resource does not exist', ['not_found']],
  ['429', 'Rate limit or monthly quota reached (Retry-After gives the seconds to wait)', ['rate_limited', 'quota_exceeded']],
  ['500', 'Unexpected server error', ['internal_error']],
  ['503', 'Required data snapshot is unavailable or stale', ['snapshot_unavailable']],
];

function headersObject(extra: Record<string, string> = {}) {
  return Object.fromEntries(
    Object.entries({ ...LIMIT_HEADERS, ...extra }).map(([name, description]) => [
      name,
      { description, schema: name === 'X-Request-Id' || name === 'ETag' ? { type: 'string' } : { type: 'integer' } },
    ]),
  );
}

function parametersOf(op: Operation): object[] {
  const list: object[] = [];
  const pathProps = (op.params?.properties ?? {}) as Record<string, JsonSchema>;
  for (const [name, schema] of Object.entries(pathProps)) list.push({ name, in: 'path', required: true, schema });
  const queryProps = (op.querystring.properties ?? {}) as Record<string, JsonSchema>;
  const required = (op.querystring.required ?? []) as string[];
  for (const [name, schema] of Object.entries(queryProps)) {
    const { description, ...rest } = schema;
    list.push({ name, in: 'query', required: required.includes(name), ...(description ? { description } : {}), schema: rest });
  }
  return list;
}

/**
 * The OpenAPI 3.1 description of Profile A, generated from the operations, parameter schemas,
 * record schemas and envelopes the server itself validates and serializes with.
 */
export function openApiDocument(operations: readonly Operation[], docsBase: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations.filter((o) => o.profile === 'A')) {
    const openApiPath = op.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const responses: Record<string, unknown> = {
      '200': {
        description: op.summary,
        headers: headersObject({ ETag: 'Strong validator of the response content; send it back in If-None-Match.' }),
        content: { 'application/json': { schema: ref(op.envelope as string) } },
      },
      '304': { description: 'Not modified (If-None-Match matched the ETag)', headers: headersObject() },
    };
    for (const [status, description, codes] of ERROR_RESPONSES) {
      responses[status] = {
        description: `${description}. Codes: ${codes.join(', ')}.`,
        headers: headersObject(status === '429' ? { 'Retry-After': 'Seconds to wait before retrying.' } : {}),
        content: { 'application/json': { schema: ref('ErrorEnvelope') } },
      };
    }
    paths[openApiPath] = {
      get: {
        operationId: op.operationId,
        summary: op.summary,
        ...(op.description ? { description: op.description } : {}),
        security: [{ bearerAuth: [op.scope] }],
        'x-required-scope': op.scope,
        parameters: parametersOf(op),
        responses,
      },
    };
  }

  const schemas: Record<string, unknown> = {};
  for (const name of PROFILE_A_RECORDS) schemas[name] = RECORD_SCHEMAS[name];
  for (const name of Object.keys(PROFILE_A_ENVELOPES) as ProfileAEnvelopeName[]) schemas[name] = profileAEnvelope(name, recordRef);
  schemas.ErrorEnvelope = PROFILE_A_ERROR_ENVELOPE;

  return {
    openapi: '3.1.0',
    info: {
      title: 'Public Data API (Profile A)',
      version: '1.0.0',
      description:
        'Read-only articles, economic calendar and Smart Money data from immutable snapshots. ' +
        `Every error carries a docsUrl of the form ${docsBase.replace(/\/+$/, '')}/errors#<code>.`,
    },
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: `Authorization: Bearer <API_KEY>. Each operation requires one scope, listed in its security requirement: ${SCOPES.join(', ')}.`,
        },
      },
      schemas,
    },
  };
}
