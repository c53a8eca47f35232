import type { FastifyReply, FastifyRequest } from 'fastify';
import { matchingTag } from './etag.js';

/** What the caching headers of one keyed answer are made of. */
export interface Validators {
  etag: string;
  /** When the content last changed: the snapshot's generatedAt, or later for day-dependent lists. */
  lastModifiedMs: number;
  /** The dataset is refused (503) after this instant, so no cache may keep the answer past it. */
  freshUntilMs: number;
  nowMs: number;
  /** A newer snapshot may be served this long after a swap is published; 0 = the server never reloads. */
  reloadIntervalMs: number;
}

/**
 * `private`: a keyed answer is for its key only (a shared cache must not hand it to another key).
 * max-age: no longer than the reload interval (a new snapshot may be served by then) and no later
 * than freshUntil (after which the server itself refuses the data).
 */
function cacheControlOf(v: Pick<Validators, 'freshUntilMs' | 'nowMs' | 'reloadIntervalMs'>): string {
  let seconds = Math.floor((v.freshUntilMs - v.nowMs) / 1000);
  if (v.reloadIntervalMs > 0) seconds = Math.min(seconds, Math.floor(v.reloadIntervalMs / 1000));
  return `private, max-age=${Math.max(0, seconds)}`;
}

/**
 * Sets ETag, Last-Modified and Cache-Control, and answers 304 when the request's validators match,
 * before the handler selects or serializes anything. If-None-Match wins over If-Modified-Since
 * (RFC 9110 13.2.2). If-Modified-Since matches only the exact Last-Modified second: a rollback
 * serves an older snapshot, and "not modified since" would then wrongly hold (like nginx's
 * `if_modified_since exact`).
 */
export function answerConditionally(request: FastifyRequest, reply: FastifyReply, v: Validators): boolean {
  const lastModified = httpDate(v.lastModifiedMs);
  reply.headers({ ETag: v.etag, 'Last-Modified': lastModified, 'Cache-Control': cacheControlOf(v) });
  // On 304s and small bodies too: whether a body is compressed is decided from Accept-Encoding.
  addVary(reply, 'accept-encoding');
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    const held = matchingTag(ifNoneMatch, v.etag);
    if (held === null) return false;
    reply.header('ETag', held).code(304);
    return true;
  }
  const since = request.headers['if-modified-since'];
  if (since === undefined || httpDateMs(since) !== Date.parse(lastModified)) return false;
  reply.code(304);
  return true;
}

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
/** The three forms of an HTTP-date (RFC 9110 5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime forms. */
const HTTP_DATE = [
  new RegExp(`^${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT$`),
  new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \\d{2}-${MONTH}-\\d{2} ${TIME} GMT$`),
  new RegExp(`^${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4}$`),
];

/**
 * The instant of an HTTP-date; NaN for anything else, which If-Modified-Since must then ignore
 * (RFC 9110 13.1.3), however readable Date.parse would find it (an ISO 8601 instant).
 */
function httpDateMs(value: string): number {
  const [fixdate, rfc850, asctime] = HTTP_DATE as [RegExp, RegExp, RegExp];
  if (fixdate.test(value) || rfc850.test(value)) return Date.parse(value);
  // asctime carries no zone, and means GMT.
  if (asctime.test(value)) return Date.parse(`${value} GMT`);
  return Number.NaN;
}

/** The last instant formatted, kept: every answer of one snapshot carries the same Last-Modified. */
let lastDate = { ms: Number.NaN, text: '' };

/** An HTTP date (IMF-fixdate) of the whole second holding `ms`. */
function httpDate(ms: number): string {
  const second = Math.floor(ms / 1000) * 1000;
  if (lastDate.ms !== second) lastDate = { ms: second, text: new Date(second).toUTCString() };
  return lastDate.text;
}

/** Adds a field to Vary, keeping what is there (lower case, as compression.ts writes it). */
export function addVary(reply: FastifyReply, field: string): void {
  const current = reply.getHeader('Vary');
  if (current === undefined) {
    reply.header('Vary', field);
    return;
  }
  const fields = (Array.isArray(current) ? current.join(',') : String(current ?? ''))
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  if (!fields.some((f) => f.toLowerCase() === field.toLowerCase())) reply.header('Vary', [...fields, field].join(', '));
}
