import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { DatasetName } from '../model/dataset.js';
import type { Scope } from './access/index.js';
import type { JsonSchema } from './parameter-validation.js';
import type { Profile } from './profile.js';
import type { ProfileAEnvelopeName } from './schemas/envelopes.js';
import type { RecordName } from './schemas/record-schemas.js';
import type { Page } from './indexes/page.js';
import type { DatasetIndexes } from './snapshots.js';

export type Query = Record<string, unknown>;
export type Params = Record<string, string>;

/** What the shared request flow (routes/register-operation.ts) reads of every list query. */
export interface ListQuery {
  limit: number;
  /** Profile A pages by cursor. */
  cursor?: string;
  /** Profile B pages by offset. */
  offset?: number;
}

/**
 * The validated parameters of a declared (const-typed) schema. The validator applies the schema's
 * defaults (useDefaults, parameter-validation.ts), so a property with a default is always present:
 * keepDefaultedPropertiesOptional stays false to say so. An erased schema (JsonSchema, an index
 * signature, as in the registry's Operation) gives `Erased`, what the shared flow may rely on.
 */
export type ParametersOf<S extends JsonSchema, Erased> = string extends keyof S
  ? Erased
  : S extends JSONSchema
    ? FromSchema<S, { keepDefaultedPropertiesOptional: false }>
    : never;

/** What a list request needs from its snapshot, decided before any snapshot work. */
export interface ListPlan<D extends DatasetName> {
  /** Normalized filter parameters (no limit, cursor or offset): what a cursor and an ETag bind to. */
  filters: Record<string, unknown>;
  /** For a list that depends on the day as well as the snapshot: the span in which it holds (Last-Modified, max-age). */
  validSpan?: { fromMs: number; untilMs: number };
  /** The page that starts at `position` (0 for the first page; later, a page's `next`). */
  page(index: DatasetIndexes[D], position: number, limit: number): Page;
}

export interface SinglePlan<D extends DatasetName> {
  key: Record<string, unknown>;
  find(index: DatasetIndexes[D]): unknown;
  notFoundMessage: string;
}

interface OperationBase<D extends DatasetName> {
  profile: Profile;
  operationId: string;
  /** Fastify route path, e.g. /v1/articles/:slug. */
  path: string;
  dataset: D;
  /** The scope a key needs (both profiles; Profile B answers 403 insufficient_scope in its envelope). */
  scope: Scope;
  summary: string;
  /** What the operation returns and how it filters and orders: the OpenAPI description of the operation. */
  description: string;
  querystring: JsonSchema;
  params?: JsonSchema;
  /** Schema of the 200 body: the serializer writes exactly its properties. */
  response: JsonSchema;
  /** The given envelope name (Profile A), for the OpenAPI description. */
  envelope?: ProfileAEnvelopeName;
  /** The record its data holds (Profile B, whose envelopes have no given names), for the OpenAPI description. */
  record?: RecordName;
}

export interface ListOperation<D extends DatasetName = DatasetName, Q extends JsonSchema = JsonSchema> extends OperationBase<D> {
  kind: 'list';
  querystring: Q;
  /** Cross-parameter rules (throw ParameterProblem) and the selection. */
  plan(query: ParametersOf<Q, ListQuery & Query>, now: Date): ListPlan<D>;
}

export interface SingleOperation<D extends DatasetName = DatasetName, Q extends JsonSchema = JsonSchema, P extends JsonSchema = JsonSchema>
  extends OperationBase<D> {
  kind: 'single';
  querystring: Q;
  params: P;
  plan(params: ParametersOf<P, Params>, query: ParametersOf<Q, Query>): SinglePlan<D>;
}

export type Operation = ListOperation<DatasetName> | SingleOperation<DatasetName>;

/**
 * Keep each operation's index and parameter types precise where it is defined, and erase them for
 * the registry. A list's querystring must give the ListQuery the shared flow reads (a limit, and a
 * string cursor or an integer offset), else `querystring` does not type-check.
 */
export function listOperation<D extends DatasetName, const Q extends JsonSchema>(
  op: ListOperation<D, Q> & {
    querystring: ParametersOf<Q, never> extends ListQuery ? Q : 'declares no limit, cursor or offset as ListQuery';
  },
): Operation {
  return op as unknown as Operation;
}

export function singleOperation<D extends DatasetName, const Q extends JsonSchema, const P extends JsonSchema>(
  op: SingleOperation<D, Q, P>,
): Operation {
  return op as unknown as Operation;
}
