import type { FastifyInstance } from 'fastify';
import { ApiError } from './api-error.js';
import { accessOf } from './route-access.js';

/**
 * Per client address, a token bucket for the public routes that serve the API's documentation
 * (`/docs` and its scripts, the two OpenAPI descriptions): `perSecond` requests a second, in bursts
 * of up to BURST_SECONDS of them. They need no key, so without a limit of their own one client could
 * send them as fast as the server answers. The orchestrator's probes (`/healthz`, `/readyz`) are
 * never limited. In memory and per process, on a monotonic clock (not the injected "now", which a
 * fixed `--now` would freeze): the limit holds per server instance. At most MAX_ADDRESSES are
 * tracked; when that many are, the buckets that have refilled are dropped (at most once a second)
 * and an address beyond them is not limited until there is room.
 */
export const DEFAULT_PUBLIC_RATE_PER_SECOND = 10;
/** A bucket holds this many seconds' worth of requests: a page and its assets load at once. */
const BURST_SECONDS = 10;
const MAX_ADDRESSES = 100_000;

interface Bucket {
  tokens: number;
  atMs: number;
}

export class PublicRouteLimit {
  private readonly buckets = new Map<string, Bucket>();
  private readonly burst: number;
  private sweptAtMs = -Infinity;

  constructor(
    /** 0: no limit. */
    private readonly perSecond: number = DEFAULT_PUBLIC_RATE_PER_SECOND,
    private readonly monotonicMs: () => number = () => performance.now(),
  ) {
    this.burst = Math.max(1, perSecond * BURST_SECONDS);
  }

  /** Takes one request of `address`: 0 when it may go on, else the whole seconds until it may. */
  take(address: string): number {
    if (this.perSecond <= 0) return 0;
    const nowMs = this.monotonicMs();
    let bucket = this.buckets.get(address);
    if (bucket === undefined) {
      if (this.buckets.size >= MAX_ADDRESSES && !this.sweep(nowMs)) return 0;
      bucket = { tokens: this.burst, atMs: nowMs };
      this.buckets.set(address, bucket);
    } else {
      bucket.tokens = Math.min(this.burst, bucket.tokens + ((nowMs - bucket.atMs) * this.perSecond) / 1000);
      bucket.atMs = nowMs;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
  }

  /** Drops the buckets that are full again; true when there is room now. */
  private sweep(nowMs: number): boolean {
    if (nowMs - this.sweptAtMs >= 1000) {
      this.sweptAtMs = nowMs;
      for (const [address, bucket] of this.buckets) {
        if (bucket.tokens + ((nowMs - bucket.atMs) * this.perSecond) / 1000 >= this.burst) this.buckets.delete(address);
      }
    }
    return this.buckets.size < MAX_ADDRESSES;
  }
}

/**
 * Refuses a request of a public route whose address has used its bucket: 429 `rate_limited` with
 * Retry-After, in the envelope of the route's profile (Profile A's for `/docs`), before anything is
 * built or sent. Decided by the matched route, like every access rule.
 */
export function installPublicRouteLimit(app: FastifyInstance, limit: PublicRouteLimit): void {
  app.addHook('onRequest', async (request, reply) => {
    if (accessOf(request)?.access !== 'public') return;
    const retryAfter = limit.take(request.ip);
    if (retryAfter === 0) return;
    reply.header('Retry-After', String(retryAfter));
    throw new ApiError(
      429,
      'rate_limited',
      'Too many requests for the documentation from this address; retry after the Retry-After seconds',
    );
  });
}
