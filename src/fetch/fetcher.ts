import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Dispatcher } from 'undici';
import { type FetchLedger, ledgerEntryOf } from '../ingest/fetch-ledger.js';
import { digestFile, type FileDigest } from '../lib/file-digest.js';
import type { FetchLedgerEntry } from '../model/fetch-ledger.js';
import { literalHostRefusal, type TrustedHosts } from './address-guard.js';
import { commitDownload, type DownloadCaps, headerValue, receiveBody, removeLeftovers, temporaryPathFor } from './atomic-download.js';
import { AttemptFailed } from './fetch-errors.js';
import type { FetchedSource, FetchOutcome } from './fetch-report.js';
import type { FetchTarget } from './fetch-target.js';
import type { HttpClient, HttpTimeouts } from './http-client.js';
import type { LedgerWriter } from './ledger-writer.js';
import { isSecRatePage, RATE_PAGE_READ_BYTES, retryAfterMs, SEC_RATE_PAGE_MARKER, SEC_RATE_PAGE_WAIT_MS } from './rate-limit-answer.js';
import { attemptFailure, backoffMs, isRetryableStatus } from './retry-policy.js';
import { SecStopped, type SecTraffic, type WaitBudget } from './sec-traffic.js';
import type { Timer } from './timer.js';

/** Redirects followed for one request at most. */
export const MAX_REDIRECTS = 5;
/** Answers asking to slow down that one file may receive before it is given up. */
const MAX_RATE_ANSWERS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface FetchContext {
  sourcesRoot: string;
  client: HttpClient;
  trusted: TrustedHosts;
  /** Every request toward SEC goes through it; null when no SEC source is fetched. */
  sec: SecTraffic | null;
  budget: WaitBudget;
  timer: Timer;
  /** The clock of `fetchedAt` in the ledger. */
  wallClock: () => Date;
  caps: DownloadCaps;
  timeouts: HttpTimeouts;
  /** Attempts after the first, for failures worth another one. */
  retries: number;
  ledger: FetchLedger;
  ledgerWriter: LedgerWriter;
  userAgent: { sec: string; other: string };
  stats: { requests: number; bytes: number };
  onRequest?: () => void;
}

interface Answer {
  response: Dispatcher.ResponseData;
  /** The address that answered (after redirects). */
  url: URL;
}

/** The copy on disk and the ledger entry that vouches for it (the validators of a conditional request). */
interface CurrentCopy {
  digest: FileDigest;
  entry: FetchLedgerEntry | undefined;
}

/**
 * Brings one file up to date: a GET (conditional when the target says so), redirects checked hop
 * by hop, the body received into a temporary file and renamed over the last good copy only when
 * whole, the ledger entry written first. Failures worth it are tried again after a backoff; a
 * server asking to slow down is waited for when --max-wait allows. Never throws for a failure of
 * the download: the outcome says it, and the last good copy stays.
 */
export async function fetchTarget(target: FetchTarget, ctx: FetchContext): Promise<FetchedSource> {
  const file = path.join(ctx.sourcesRoot, target.path);
  const current = await currentCopy(ctx, target, file);
  let status: number | null = null;
  const outcome = (kind: FetchOutcome, reason: string | null, digest: FileDigest | null = current?.digest ?? null): FetchedSource => ({
    kind: target.kind,
    url: target.url,
    path: target.path,
    outcome: kind,
    status,
    bytes: digest?.bytes ?? null,
    sha256: digest?.sha256 ?? null,
    reason,
  });
  const failed = (reason: string) => outcome('failed', current === null ? reason : `${reason}; the last good copy is kept`);
  await removeLeftovers(file);

  let failures = 0;
  let rateAnswers = 0;
  for (;;) {
    let temp: string | null = null;
    try {
      const signal = AbortSignal.timeout(ctx.timeouts.totalMs);
      const answer = await requestFollowingRedirects(target, current?.entry, ctx, signal);
      const { response } = answer;
      status = response.statusCode;
      if (status === 304 && current?.entry !== undefined) {
        await response.body.dump();
        return outcome('unchanged', null);
      }
      if (status === 200) {
        temp = temporaryPathFor(file);
        const digest = await receiveBody(response.body, response.headers, temp, ctx.caps);
        if (digest.bytes === 0) throw new AttemptFailed('the answer has an empty body', false, status);
        const refusal = target.check === null ? null : await target.check(temp);
        if (refusal !== null) throw new AttemptFailed(refusal.reason, refusal.retry, status);
        await ctx.ledgerWriter.append(ledgerEntry(target, answer, digest, ctx.wallClock()));
        await commitDownload(temp, file);
        temp = null;
        ctx.stats.bytes += digest.bytes;
        // A server without validators sends the same bytes again: say so.
        return outcome(current?.digest.sha256 === digest.sha256 ? 'unchanged' : 'fetched', null, digest);
      }
      const wait = await rateLimitWait(response, ctx.wallClock().getTime());
      if (wait !== null) {
        rateAnswers += 1;
        const why = `${target.url} answered ${status} ${wait.what}`;
        if (rateAnswers > MAX_RATE_ANSWERS) return failed(`${why}, the ${rateAnswers}th time`);
        if (ctx.sec?.isSec(answer.url)) {
          if (!ctx.sec.askedToWait(wait.ms, why)) return failed(ctx.sec.stoppedReason ?? why);
        } else if (ctx.budget.take(wait.ms)) {
          await ctx.timer.sleep(wait.ms);
        } else {
          return failed(`${why}: a wait longer than what is left of --max-wait`);
        }
        continue;
      }
      await response.body.dump({ limit: RATE_PAGE_READ_BYTES }).catch(() => undefined);
      if (status === 404 && target.missingReason !== undefined) return outcome('skipped', target.missingReason);
      throw new AttemptFailed(`HTTP ${status}`, isRetryableStatus(status), status);
    } catch (error) {
      if (error instanceof SecStopped) return outcome('skipped', `not asked: ${error.message}`);
      const failure = attemptFailure(error, ctx.timeouts);
      status = failure.status ?? status;
      failures += 1;
      if (!failure.retry || failures > ctx.retries) {
        return failed(failures > 1 ? `${failure.message} (attempt ${failures} of ${ctx.retries + 1})` : failure.message);
      }
      await ctx.timer.sleep(backoffMs(failures));
    } finally {
      if (temp !== null) await rm(temp, { force: true });
    }
  }
}

/** The copy on disk, when there is one, and, for a conditional request, the ledger entry of its bytes. */
async function currentCopy(ctx: FetchContext, target: FetchTarget, file: string): Promise<CurrentCopy | null> {
  let digest: FileDigest;
  try {
    digest = await digestFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return { digest, entry: target.conditional ? ledgerEntryOf(ctx.ledger, { path: target.path, ...digest }) : undefined };
}

/**
 * One GET and the redirects it leads to, each hop checked before it is asked for: http(s) only, at
 * most MAX_REDIRECTS, no internal address the configuration does not name. Headers from the
 * configuration (secrets) go to the configured origin only, as browsers drop Authorization on a
 * redirect elsewhere. Every request toward SEC waits for the limiter.
 */
async function requestFollowingRedirects(
  target: FetchTarget,
  validators: FetchLedgerEntry | undefined,
  ctx: FetchContext,
  signal: AbortSignal,
): Promise<Answer> {
  const origin = new URL(target.url).origin;
  let url = new URL(target.url);
  /** The status of the redirect that led to `url`, for a refusal of where it leads. */
  let redirectStatus: number | null = null;
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new AttemptFailed(`a redirect to ${url.protocol} is refused (http and https only)`, false, redirectStatus);
    }
    const refusal = literalHostRefusal(url.hostname, ctx.trusted);
    if (refusal !== null) throw new AttemptFailed(hop === 0 ? refusal : `a redirect to ${refusal}`, false, redirectStatus);
    const sec = ctx.sec?.isSec(url) ?? false;
    if (sec) await ctx.sec!.beforeRequest();
    ctx.stats.requests += 1;
    ctx.onRequest?.();
    const headers: Record<string, string> = {
      ...(url.origin === origin ? target.headers : {}),
      'user-agent': sec ? ctx.userAgent.sec : (headerOf(target.headers, 'user-agent') ?? ctx.userAgent.other),
      'accept-encoding': 'gzip',
    };
    if (validators?.etag !== undefined) headers['if-none-match'] = validators.etag;
    if (validators?.lastModified !== undefined) headers['if-modified-since'] = validators.lastModified;
    const response = await ctx.client.get(url, headers, signal);
    const location = headerValue(response.headers.location);
    if (!REDIRECT_STATUSES.has(response.statusCode) || location === undefined) return { response, url };
    await response.body.dump({ limit: RATE_PAGE_READ_BYTES }).catch(() => undefined);
    redirectStatus = response.statusCode;
    if (hop === MAX_REDIRECTS) throw new AttemptFailed(`more than ${MAX_REDIRECTS} redirects`, false, response.statusCode);
    try {
      url = new URL(location, url);
    } catch {
      throw new AttemptFailed(`a redirect to "${location}", which is no address`, false, response.statusCode);
    }
  }
}

function headerOf(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  return Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
}

/** A 429, or SEC's 403 page: how long to wait, and how the server put it; null for any other answer. */
async function rateLimitWait(response: Dispatcher.ResponseData, wallClockMs: number): Promise<{ ms: number; what: string } | null> {
  if (response.statusCode === 429) {
    const asked = retryAfterMs(response.headers['retry-after'], wallClockMs);
    await response.body.dump({ limit: RATE_PAGE_READ_BYTES }).catch(() => undefined);
    return asked === null
      ? { ms: SEC_RATE_PAGE_WAIT_MS, what: 'Too Many Requests without Retry-After' }
      : { ms: asked, what: `Too Many Requests (Retry-After: ${headerValue(response.headers['retry-after'])})` };
  }
  if (response.statusCode !== 403) return null;
  const page = await readSome(response.body, RATE_PAGE_READ_BYTES);
  if (!isSecRatePage(page)) return null;
  return { ms: retryAfterMs(response.headers['retry-after'], wallClockMs) ?? SEC_RATE_PAGE_WAIT_MS, what: `"${SEC_RATE_PAGE_MARKER}"` };
}

/** The first `limit` bytes of a body as text; the rest is thrown away. */
async function readSome(body: Dispatcher.ResponseData['body'], limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of body) {
      if (length < limit) chunks.push(chunk as Buffer);
      length += (chunk as Buffer).length;
      if (length >= limit) break;
    }
  } catch {
    // A page cut short is still read as far as it came.
  }
  body.destroy();
  return Buffer.concat(chunks).toString('utf8');
}

function ledgerEntry(target: FetchTarget, answer: Answer, digest: FileDigest, at: Date): FetchLedgerEntry {
  const etag = headerValue(answer.response.headers.etag);
  const lastModified = headerValue(answer.response.headers['last-modified']);
  const redirected = answer.url.href !== new URL(target.url).href;
  return {
    path: target.path,
    url: target.url,
    // Origin and path only: a query may hold a signature the ledger must not keep.
    ...(redirected ? { redirectedTo: `${answer.url.origin}${answer.url.pathname}` } : {}),
    fetchedAt: at.toISOString(),
    status: answer.response.statusCode,
    ...(etag === undefined ? {} : { etag }),
    ...(lastModified === undefined ? {} : { lastModified }),
    bytes: digest.bytes,
    sha256: digest.sha256,
  };
}
