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

export interface ListOperation<D extends DatasetName = DatasetName> extends OperationBase<D> {
  kind: 'list';
  /** Cross-parameter rules (throw ParameterProblem) and the selection. */
  plan(query: Query, now: Date): ListPlan<D>;
}

export interface SingleOperation<D extends DatasetName = DatasetName> extends OperationBase<D> {
  kind: 'single';
  plan(params: Params, query: Query): SinglePlan<D>;
}

export type Operation = ListOperation<DatasetName> | SingleOperation<DatasetName>;

/** Keeps each operation's index type precise where it is defined, and erases it for the registry. */
export function listOperation<D extends DatasetName>(op: ListOperation<D>): Operation {
  return op as unknown as Operation;
}

export function singleOperation<D extends DatasetName>(op: SingleOperation<D>): Operation {
  return op as unknown as Operation;
}
