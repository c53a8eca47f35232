import type { JsonSchema } from '../parameter-validation.js';
import type { RecordName, SchemaRef } from './record-schemas.js';

/**
 * Response envelopes (docs/spec.md, Envelopes). Each builder takes how to
 * refer to a record schema, so the routes (records inline, for the serializer) and the OpenAPI
 * description ($refs into components) are generated from the same definitions.
 */

const INSTANT = { type: 'string', format: 'date-time' };

const listSnapshot: JsonSchema = {
  type: 'object',
  description: 'The immutable snapshot this page was read from; coverageThrough only for the calendar.',
  properties: { id: { type: 'string' }, generatedAt: INSTANT, coverageThrough: { type: 'string', format: 'date' } },
  required: ['id', 'generatedAt'],
  additionalProperties: false,
};

const singleSnapshot: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, generatedAt: INSTANT },
  required: ['id', 'generatedAt'],
  additionalProperties: false,
};

const page: JsonSchema = {
  type: 'object',
  properties: {
    limit: { type: 'integer' },
    nextCursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last page.' },
  },
  required: ['limit', 'nextCursor'],
  additionalProperties: false,
};

const requestId = { type: 'string', description: 'Equal to the X-Request-Id header.' };

function profileAListEnvelope(record: JsonSchema): JsonSchema {
  return {
    type: 'object',
    properties: { data: { type: 'array', items: record }, page, snapshot: listSnapshot, requestId },
    required: ['data', 'page', 'snapshot', 'requestId'],
    additionalProperties: false,
  };
}

function profileASingleEnvelope(record: JsonSchema): JsonSchema {
  return {
    type: 'object',
    properties: { data: record, snapshot: singleSnapshot, requestId },
    required: ['data', 'snapshot', 'requestId'],
    additionalProperties: false,
  };
}

export const PROFILE_A_ERROR_ENVELOPE: JsonSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        requestId: { type: 'string' },
        docsUrl: { type: 'string', format: 'uri' },
      },
      required: ['code', 'message', 'requestId', 'docsUrl'],
      additionalProperties: false,
    },
  },
  required: ['error'],
  additionalProperties: false,
};

export function profileBListEnvelope(record: JsonSchema): JsonSchema {
  return {
    type: 'object',
    properties: {
      data: { type: 'array', items: record },
      pagination: {
        type: 'object',
        properties: { total: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' } },
        required: ['total', 'limit', 'offset'],
        additionalProperties: false,
      },
    },
    required: ['data', 'pagination'],
    additionalProperties: false,
  };
}

export function profileBSingleEnvelope(record: JsonSchema): JsonSchema {
  return { type: 'object', properties: { data: record }, required: ['data'], additionalProperties: false };
}

export const PROFILE_B_ERROR_ENVELOPE: JsonSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' } },
      required: ['code', 'message'],
      additionalProperties: false,
    },
  },
  required: ['error'],
  additionalProperties: false,
};

/** The given envelope names of Profile A and what each wraps. */
export const PROFILE_A_ENVELOPES = {
  ArticleListEnvelope: { kind: 'list', record: 'ArticleSummary' },
  ArticleEnvelope: { kind: 'single', record: 'Article' },
  EconomicCalendarListEnvelope: { kind: 'list', record: 'CalendarEvent' },
  SmartMoneyInvestorListEnvelope: { kind: 'list', record: 'SmartMoneyInvestor' },
  SmartMoneyInvestorDetailEnvelope: { kind: 'single', record: 'SmartMoneyInvestorDetail' },
  SmartMoneyConsensusListEnvelope: { kind: 'list', record: 'SmartMoneyConsensusRow' },
  SmartMoneyTradeListEnvelope: { kind: 'list', record: 'SmartMoneyTrade' },
} as const satisfies Record<string, { kind: 'list' | 'single'; record: RecordName }>;

export type ProfileAEnvelopeName = keyof typeof PROFILE_A_ENVELOPES;

export function profileAEnvelope(name: ProfileAEnvelopeName, ref: SchemaRef): JsonSchema {
  const { kind, record } = PROFILE_A_ENVELOPES[name];
  return kind === 'list' ? profileAListEnvelope(ref(record)) : profileASingleEnvelope(ref(record));
}
