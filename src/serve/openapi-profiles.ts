import { SCOPES } from './access/index.js';
import type { ErrorCode } from './api-error.js';
import { MAX_HEADER_COUNT } from './header-count.js';
import type { Profile } from './profile.js';
import { PROFILE_A_ERROR_ENVELOPE, PROFILE_B_ERROR_ENVELOPE } from './schemas/envelopes.js';
import type { JsonSchema } from './parameter-validation.js';

/**
 * What differs between the two profiles' OpenAPI descriptions: title, how a key is sent, the
 * limit headers, the error codes and their envelope. docs/spec.md (API profiles, Error codes,
 * Response headers) holds the tables these follow.
 */
export interface ProfileDescription {
  title: string;
  summary: string;
  description: string;
  securitySchemes: Record<string, JsonSchema>;
  /** Alternatives: any one of them authenticates. Non-OAuth schemes carry no scopes here. */
  security: Array<Record<string, string[]>>;
  limitHeaders: Record<string, { description: string; type: 'integer' | 'string' }>;
  errors: Array<{ status: string; description: string; codes: Array<[ErrorCode, string]> }>;
  errorEnvelope: JsonSchema;
  errorExample(code: string, message: string, docsBase: string): unknown;
}

const RATE_HEADERS = {
  'X-RateLimit-Limit': { description: "Requests per minute of the key's tier.", type: 'integer' },
  'X-RateLimit-Remaining': { description: 'Requests left in the current fixed 60-second window.', type: 'integer' },
  'X-RateLimit-Reset': { description: 'Unix time in seconds at which the current window ends.', type: 'integer' },
} as const;

const SCOPE_TEXT =
  `Each operation needs one scope, granted when the key is created (\`pdsnap keys create --scopes\`): ${SCOPES.map((s) => `\`${s}\``).join(', ')}. ` +
  'The scope of an operation is named in its description and in its `x-required-scope` extension; a key without it gets 403 insufficient_scope. ' +
  'These are not OAuth scopes: a key is sent as is, never exchanged for a token.';

/** The errors both profiles answer alike, from 403 on: their codes and statuses are the same. */
const SHARED_ERRORS: ProfileDescription['errors'] = [
  {
    status: '403',
    description: 'The key lacks the scope of the operation',
    codes: [['insufficient_scope', 'This key lacks the required scope']],
  },
  { status: '404', description: 'No such record or path', codes: [['not_found', 'Not found']] },
  {
    status: '429',
    description: 'Per-minute limit or monthly hard cap reached; Retry-After gives the seconds to wait',
    codes: [
      ['rate_limited', 'Rate limit exceeded'],
      ['quota_exceeded', 'Monthly quota exceeded'],
    ],
  },
  {
    status: '500',
    description: 'Unexpected server error (details only in the server log)',
    codes: [['internal_error', 'Internal server error']],
  },
  {
    status: '503',
    description: "The dataset's snapshot is missing, unverifiable or stale, or the key store is unreachable",
    codes: [['snapshot_unavailable', 'The dataset is temporarily unavailable']],
  },
];

const EXAMPLE_REQUEST_ID = 'req_5f0c6a2e9b1d4c7a8e3f2b10';

/** Refusals of how a request was sent, before any operation: not listed per operation, stated once. */
const transportRefusals = (code: 'invalid_request' | 'invalid_params'): string =>
  ' A request refused for how it was sent, before any operation, gets the same error envelope with the code ' +
  `\`${code}\`: 431 for a header section over 16 KiB or of ${MAX_HEADER_COUNT.toLocaleString('en-US')} header fields or more, ` +
  '417 for an `Expect` other than `100-continue`, 501 for a transfer coding other than `chunked`.';

export const PROFILE_DESCRIPTIONS: Readonly<Record<Profile, ProfileDescription>> = {
  A: {
    title: 'Public Data API (Profile A)',
    summary: 'Articles, economic calendar and Smart Money data, cursor-paged.',
    description:
      'Read-only articles, an economic calendar and Smart Money (SEC Form 13F) data, served from immutable snapshots. ' +
      'Lists are paged with opaque cursors (`page.nextCursor`). Responses carry `ETag`, `Last-Modified` and `Cache-Control`; ' +
      'send `If-None-Match` to get 304 Not Modified, and `Accept-Encoding: br` or `gzip` for compressed bodies.' +
      transportRefusals('invalid_request'),
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: `\`Authorization: Bearer <API key>\`. ${SCOPE_TEXT}` },
    },
    security: [{ bearerAuth: [] }],
    limitHeaders: {
      ...RATE_HEADERS,
      'X-Quota-Limit': { description: 'Monthly request limit (the hard cap of the tier).', type: 'integer' },
      'X-Quota-Remaining': { description: 'Included requests left this UTC month; 0 while in metered overage.', type: 'integer' },
      'X-Quota-Reset': {
        description: 'Unix time in seconds at which the monthly quota resets (start of the next UTC month).',
        type: 'integer',
      },
    },
    errors: [
      {
        status: '400',
        description: 'Invalid parameters or cursor',
        codes: [
          ['invalid_request', 'limit must be <= 100'],
          ['invalid_cursor', 'The cursor is not valid for this request; start again without a cursor'],
        ],
      },
      { status: '401', description: 'API key missing, wrong or revoked', codes: [['invalid_api_key', 'A valid API key is required']] },
      ...SHARED_ERRORS,
    ],
    errorEnvelope: PROFILE_A_ERROR_ENVELOPE,
    errorExample: (code, message, docsBase) => ({
      error: {
        code,
        message,
        requestId: EXAMPLE_REQUEST_ID,
        docsUrl: code === 'quota_exceeded' ? `${docsBase}/extra-usage` : `${docsBase}/errors#${code}`,
      },
    }),
  },
  B: {
    title: 'Public Data API (Profile B)',
    summary: 'Articles and economic calendar by region, offset-paged.',
    description:
      'Read-only articles and economic calendar events of a region (us, kr, jp), served from immutable snapshots and paged with `offset` and `limit`. ' +
      'Responses carry `ETag`, `Last-Modified` and `Cache-Control`; send `If-None-Match` to get 304 Not Modified, and `Accept-Encoding: br` or `gzip` for compressed bodies.' +
      transportRefusals('invalid_params'),
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: `\`Authorization: Bearer <API key>\`. ${SCOPE_TEXT}` },
      apiKeyAuth: {
        type: 'apiKey',
        in: 'header',
        name: 'X-API-Key',
        description: `\`X-API-Key: <API key>\`, the same key as for bearerAuth. ${SCOPE_TEXT}`,
      },
    },
    security: [{ bearerAuth: [] }, { apiKeyAuth: [] }],
    limitHeaders: {
      ...RATE_HEADERS,
      'X-Quota-Tier': { description: "The key's tier: free or premium.", type: 'string' },
      'X-Quota-Included': { description: 'Included requests per UTC month.', type: 'integer' },
      'X-Quota-Used': { description: 'Requests counted this UTC month.', type: 'integer' },
      'X-Quota-Remaining': { description: 'Included requests left this UTC month; 0 while in metered overage.', type: 'integer' },
    },
    errors: [
      {
        status: '400',
        description: 'Invalid parameters or region',
        codes: [
          ['invalid_params', 'limit must be <= 100'],
          ['invalid_region', 'region must be us, kr or jp'],
        ],
      },
      {
        status: '401',
        description: 'API key missing, wrong or revoked',
        codes: [
          ['unauthorized', 'An API key is required'],
          ['invalid_key', 'The API key is not valid'],
        ],
      },
      ...SHARED_ERRORS,
    ],
    errorEnvelope: PROFILE_B_ERROR_ENVELOPE,
    errorExample: (code, message) => ({ error: { code, message } }),
  },
};
