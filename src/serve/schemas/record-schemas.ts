import type { z } from 'zod';
import { Article, ArticleSummary } from '../../model/article.js';
import { CalendarEvent } from '../../model/calendar-event.js';
import { jsonSchemaOf } from '../../model/json-schema.js';
import { ConsensusRow, Investor, InvestorDetail, TradeRow } from '../../model/smart-money.js';
import type { JsonSchema } from '../parameter-validation.js';
import { ProfileBArticleDetail, ProfileBArticleListItem, ProfileBCalendarEvent } from './profile-b-shapes.js';

/**
 * The record shapes the API publishes, generated from the zod models so that each shape is written
 * once. The names are the component names of the OpenAPI description.
 */
const MODELS = {
  ArticleSummary,
  Article,
  CalendarEvent,
  SmartMoneyInvestor: Investor,
  SmartMoneyInvestorDetail: InvestorDetail,
  SmartMoneyConsensusRow: ConsensusRow,
  SmartMoneyTrade: TradeRow,
  ProfileBArticleListItem,
  ProfileBArticleDetail,
  ProfileBCalendarEvent,
} satisfies Record<string, z.ZodType>;

export type RecordName = keyof typeof MODELS;

function withoutDialect(schema: JsonSchema): JsonSchema {
  // A draft marker on a nested schema would confuse the serializer and is implied by OpenAPI 3.1.
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

export const RECORD_SCHEMAS: Readonly<Record<RecordName, JsonSchema>> = Object.fromEntries(
  Object.entries(MODELS).map(([name, model]) => [name, withoutDialect(jsonSchemaOf(model))]),
) as Record<RecordName, JsonSchema>;

/** Resolves a record name to a schema: inline for the routes, a $ref for the OpenAPI document. */
export type SchemaRef = (name: RecordName) => JsonSchema;

export const inlineRecord: SchemaRef = (name) => RECORD_SCHEMAS[name];
