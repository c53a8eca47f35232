import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { ApiError } from '../api-error.js';
import { noOperation } from '../error-handler.js';
import { type CursorCodec, queryFingerprint } from '../cursor.js';
import { answerConditionally } from '../conditional.js';
import { etagOf } from '../etag.js';
import type { ListOperation, Operation, SingleOperation } from '../operation.js';
import { PROFILE_A_ERROR_ENVELOPE, PROFILE_B_ERROR_ENVELOPE } from '../schemas/envelopes.js';
import type { ServedSnapshot, SnapshotRegistry } from '../snapshots.js';

export interface OperationDeps {
  snapshots: SnapshotRegistry;
  cursors: CursorCodec;
  now: () => Date;
  /** Bounds the max-age of answers (see conditional.ts); 0 = never reloads. */
  reloadIntervalMs: number;
}

/**
 * Registers one operation inside its profile's plugin (whose prefix is stripped from the path): its
 * declared parameter and response schemas, its scope, and the one
 * request flow every operation shares (plan, snapshot, position, ETag, page, envelope).
 */
export function registerOperation(app: FastifyInstance, op: Operation, deps: OperationDeps, prefix: string): void {
  const errorSchema = op.profile === 'A' ? PROFILE_A_ERROR_ENVELOPE : PROFILE_B_ERROR_ENVELOPE;
  if (!op.path.startsWith(`${prefix}/`)) throw new Error(`${op.operationId}: ${op.path} is not under its profile's prefix ${prefix}`);
  const url = op.path.slice(prefix.length);
  const options = {
    schema: {
      querystring: op.querystring,
      ...(op.params ? { params: op.params } : {}),
      response: { 200: op.response, '4xx': errorSchema, '5xx': errorSchema },
    },
    config: { access: { access: 'key', scope: op.scope } },
    ...(op.params ? { preValidation: refuseEmptyPathParameter } : {}),
  } satisfies RouteShorthandOptions;
  // The route types are the plan's: the validator compiled from the operation's own schemas (and
  // listOperation's ListQuery check) makes request.query and request.params those values.
  if (op.kind === 'list') app.get<ListRoute>(url, options, async (request, reply) => answerList(op, deps, request, reply));
  else app.get<SingleRoute>(url, options, async (request, reply) => answerSingle(op, deps, request, reply));
}

/**
 * The router matches `/articles/` to `/articles/:slug` with an empty slug: that is the list's path
 * with a trailing slash, which names no operation (404), not a slug too short (400). Runs after
 * authentication and before validation, so the slug's own limits stay as declared.
 */
async function refuseEmptyPathParameter(request: FastifyRequest): Promise<void> {
  if (Object.values(request.params as Record<string, string>).includes('')) throw noOperation(request);
}

type ListRoute = { Querystring: Parameters<ListOperation['plan']>[0] };
type SingleRoute = { Params: Parameters<SingleOperation['plan']>[0]; Querystring: Parameters<SingleOperation['plan']>[1] };

/** ETag, Last-Modified, Cache-Control; true when answered 304 (before any selection or serialization). */
function notModified(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: OperationDeps,
  snapshot: ServedSnapshot,
  now: Date,
  etag: string,
  span?: { fromMs: number; untilMs: number },
): boolean {
  return answerConditionally(request, reply, {
    etag,
    lastModifiedMs: Math.max(Date.parse(snapshot.generatedAt), span?.fromMs ?? 0),
    freshUntilMs: Math.min(snapshot.freshUntilMs, span?.untilMs ?? Infinity),
    nowMs: now.getTime(),
    reloadIntervalMs: deps.reloadIntervalMs,
  });
}

function answerList(op: ListOperation, deps: OperationDeps, request: FastifyRequest<ListRoute>, reply: FastifyReply) {
  const now = deps.now();
  const query = request.query;
  const plan = op.plan(query, now);
  const snapshot = deps.snapshots.require(op.dataset, now);
  const limit = query.limit;
  const binding = { snapshotId: snapshot.snapshotId, operationId: op.operationId, queryHash: queryFingerprint(plan.filters) };
  // Profile A pages by cursor (a position inside the snapshot's order); Profile B by offset.
  const position =
    op.profile === 'A' ? (typeof query.cursor === 'string' ? deps.cursors.decode(query.cursor, binding) : 0) : (query.offset ?? 0);
  const etag = etagOf([op.operationId, snapshot.snapshotId, plan.filters, limit, position], op.profile === 'A');
  if (notModified(request, reply, deps, snapshot, now, etag, plan.validSpan)) return reply.send();

  const page = plan.page(snapshot.index, position, limit);
  if (op.profile === 'B') {
    if (page.total === undefined) throw new Error(`${op.operationId}: a Profile B list must know its total`);
    return { data: page.data, pagination: { total: page.total, limit, offset: position } };
  }
  return {
    data: page.data,
    page: { limit, nextCursor: page.next === null ? null : deps.cursors.encode(binding, page.next) },
    snapshot: listSnapshotOf(snapshot),
    requestId: request.id,
  };
}

function answerSingle(op: SingleOperation, deps: OperationDeps, request: FastifyRequest<SingleRoute>, reply: FastifyReply) {
  const now = deps.now();
  const plan = op.plan(request.params, request.query);
  const snapshot = deps.snapshots.require(op.dataset, now);
  const record = plan.find(snapshot.index);
  if (record === undefined) throw new ApiError(404, 'not_found', plan.notFoundMessage);
  if (notModified(request, reply, deps, snapshot, now, etagOf([op.operationId, snapshot.snapshotId, plan.key], op.profile === 'A')))
    return reply.send();
  if (op.profile === 'B') return { data: record };
  return { data: record, snapshot: { id: snapshot.snapshotId, generatedAt: snapshot.generatedAt }, requestId: request.id };
}

function listSnapshotOf(snapshot: ServedSnapshot) {
  return {
    id: snapshot.snapshotId,
    generatedAt: snapshot.generatedAt,
    ...(snapshot.coverageThrough !== undefined ? { coverageThrough: snapshot.coverageThrough } : {}),
  };
}
