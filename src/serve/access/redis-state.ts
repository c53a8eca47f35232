import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { KeyRecord, newKeyRecord } from './key-record.js';
import { RedisClock } from './redis-clock.js';
import { generateKeySecret } from './key-secret.js';
import type { TierName, UsageCounts } from './limits.js';
import { redactedUrl } from './state-location.js';
import {
  type AdmissionLimits,
  type CountedAdmission,
  DEFAULT_REDIS_KEY_CACHE_MS,
  type KeyDirectory,
  KeyNotFoundError,
  KeyRecordError,
  type MonthlyUsageRow,
  type NewKeyInput,
  REDIS_UNKNOWN_KEY_CACHE_MS,
  type StateStore,
  StateUnavailableError,
  type UsageLedger,
} from './state-store.js';
import { WINDOW_SECONDS } from './utc-windows.js';
import { compareText } from '../../lib/text-order.js';
import { formatZodIssues } from '../../lib/zod-issues.js';

/**
 * Keys and usage in Redis, shared by every `pdsnap serve` of a deployment.
 *
 * Layout (all under `pdsnap:`):
 * - `pdsnap:key:<id>`           hash: id, name, scopes (comma-separated), tier, createdAt,
 *                               secretSha256, and revokedAt once revoked. Never the secret.
 * - `pdsnap:keys`               set of every key id, for `keys list` and `usage`.
 * - `pdsnap:usage:<YYYY-MM>`    hash per UTC month: `<id>:requests`, `<id>:rejected`, `<id>:tier`.
 *                               Kept for billing; nothing expires it.
 * - `pdsnap:window:<id>:<start>` admitted requests of one key in the 60-second window starting at
 *                               <start> (Unix seconds); expires two windows later.
 * - `pdsnap:cursor-secret`      the secret that signs cursors, so that every instance accepts the
 *                               cursors of every other.
 *
 * Requests are decided and counted by a Lua script, which Redis runs atomically, each call deciding
 * the requests that one instance received in one turn of its event loop: no two instances can both
 * admit the request after the limit. Redis Cluster is not supported (a script touches month hashes,
 * window counters and key hashes that would live in different slots); one Redis, with
 * replicas or Sentinel for availability, serves any number of instances.
 */
const PREFIX = 'pdsnap:';
const KEY_IDS = `${PREFIX}keys`;
const CURSOR_SECRET = `${PREFIX}cursor-secret`;
const keyHash = (id: string) => `${PREFIX}key:${id}`;
const monthHash = (month: string) => `${PREFIX}usage:${month}`;
const windowCounter = (keyId: string, windowStart: number) => `${PREFIX}window:${keyId}:${windowStart}`;

/**
 * Decides and counts a batch of requests in one script, which Redis runs atomically. Per request,
 * KEYS holds its month hash, window counter and key hash (stride 3), ARGV its key id, tier, hard
 * cap, per-minute limit, window TTL, the secret's SHA-256 and scopes it was authorized on, or
 * two empty strings, and whether it is billed, 1 or 0 (stride 8); the last ARGV is the instant, in
 * ms on Redis's clock, after which the call must not start. The rule is decideAdmission's of
 * limits.ts: a request that is not billed (refused for its scope) is judged by the window alone
 * and, admitted, counted in the window only. A request authorized on
 * a key record counts only while the stored key still has that secret, tier and those scopes and no
 * revokedAt; otherwise it gets {-1, 0, 0} (stale) and counts nothing. Returns {admitted 0|1|-1|-2,
 * month count before, window count before} per request, flattened, or {-3} alone when it started
 * after its instant and decided nothing.
 *
 * That instant is LATE_AFTER_MS after the call was sent. A call that Redis holds longer (a pause, a
 * long command of someone else's) still runs once Redis goes on, but by then its sender may have
 * stopped waiting (COMMAND_TIMEOUT_MS) and answered its requests 503, saying nothing was counted.
 *
 * Everything a request's writes depend on is read first, with redis.pcall: an entry of one key that
 * holds something else than a count (a hash edited by hand, a wrong type) gets that request -2 and
 * no write, instead of an error that would stop the script half way. Redis does not roll a script
 * back, so the requests decided before it would have been counted and never answered.
 */
const ADMIT_BATCH_LUA = `
local time = redis.call('TIME')
if tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) > tonumber(ARGV[#ARGV]) then return {-3} end
local results = {}
local function failed(reply) return type(reply) == 'table' and reply.err ~= nil end
-- A count as INCR and HINCRBY take it: an integer of at most 15 digits (tonumber alone would take
-- '1.5', '0x10', ' 5' or 'inf', which those commands then refuse half way through the script).
local function count(value)
  if value == false then return 0 end
  local digits = type(value) == 'string' and string.match(value, '^%-?(%d+)$')
  if not digits or #digits > 15 then return nil end
  return tonumber(value)
end
for k = 1, #KEYS, 3 do
  local a = (k - 1) / 3 * 8
  local keyId, tier, billed = ARGV[a + 1], ARGV[a + 2], ARGV[a + 8] == '1'
  local verdict = nil
  if ARGV[a + 6] ~= '' then
    local key = redis.pcall('HMGET', KEYS[k + 2], 'secretSha256', 'tier', 'scopes', 'revokedAt')
    if failed(key) then verdict = -2
    elseif key[1] ~= ARGV[a + 6] or key[2] ~= tier or key[3] ~= ARGV[a + 7] or key[4] ~= false then verdict = -1 end
  end
  local month, window = 0, 0
  if verdict == nil then
    local monthField, rejectedField = keyId .. ':requests', keyId .. ':rejected'
    local counts = redis.pcall('HMGET', KEYS[k], monthField, rejectedField)
    local windowValue = redis.pcall('GET', KEYS[k + 1])
    if failed(counts) or failed(windowValue) then verdict = -2 else
      month, window = count(counts[1]), count(windowValue)
      if month == nil or window == nil or count(counts[2]) == nil then verdict = -2 end
    end
    if verdict == nil then
      redis.call('HSET', KEYS[k], keyId .. ':tier', tier)
      if (not billed or month < tonumber(ARGV[a + 3])) and window < tonumber(ARGV[a + 4]) then
        if billed then redis.call('HINCRBY', KEYS[k], monthField, 1) end
        redis.call('INCR', KEYS[k + 1])
        redis.call('EXPIRE', KEYS[k + 1], ARGV[a + 5])
        verdict = 1
      else
        redis.call('HINCRBY', KEYS[k], rejectedField, 1)
        verdict = 0
      end
    end
  end
  if verdict < 0 then month, window = 0, 0 end
  table.insert(results, verdict); table.insert(results, month); table.insert(results, window)
end
return results
`;

/**
 * The most requests one script decides: a burst of thousands waiting at once is split, so that no
 * single script holds Redis (and every other instance) for long.
 */
const ADMIT_BATCH_MAX = 256;

/** KEYS: month hash. ARGV: key id. Never below 0, as the SQLite store. */
const RELEASE_LUA = `
local field = ARGV[1] .. ':requests'
if tonumber(redis.call('HGET', KEYS[1], field) or '0') > 0 then
  redis.call('HINCRBY', KEYS[1], field, -1)
end
return 0
`;

/** KEYS: key hash, id set. ARGV: id, then field/value pairs. 0 when the id is taken. */
const CREATE_KEY_LUA = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('SADD', KEYS[2], ARGV[1])
return 1
`;

/** KEYS: key hash. ARGV: revokedAt. -1 unknown key, 1 revoked now, 0 already revoked. */
const REVOKE_KEY_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
return redis.call('HSETNX', KEYS[1], 'revokedAt', ARGV[1])
`;

type PdsnapRedis = Redis & {
  /** numkeys, then KEYS and ARGV as ADMIT_BATCH_LUA describes. */
  pdsnapAdmitBatch(numberOfKeys: number, ...keysThenArgs: Array<string | number>): Promise<number[]>;
  pdsnapRelease(month: string, keyId: string): Promise<number>;
  pdsnapCreateKey(key: string, ids: string, id: string, ...fields: string[]): Promise<number>;
  pdsnapRevokeKey(key: string, revokedAt: string): Promise<number>;
};

/** Longest wait for one Redis command before the request fails closed. */
const COMMAND_TIMEOUT_MS = 2000;
/**
 * How late, after it was sent, an admission call may still start in Redis. The rest of
 * COMMAND_TIMEOUT_MS is the margin for its answer to travel back and be read: an answer that
 * arrives after the wait ended is ignored. (The estimate of Redis's clock is never ahead of it, so
 * its error only makes calls look later.)
 */
const LATE_AFTER_MS = COMMAND_TIMEOUT_MS / 2;
/** Reconnect back-off: 100 ms, 200 ms, ... at most 1 s, so a returning Redis is used again within a second. */
const retryDelay = (attempt: number) => Math.min(attempt * 100, 1000);

export interface RedisStateOptions {
  /** Key lookups are cached this long (ms); 0 asks Redis on every lookup. */
  keyCacheMs?: number;
  /** How long `open` waits for a first connection before giving up. */
  connectWaitMs?: number;
  /** Connection lost, connection back: for the server log. Messages never carry a password. */
  onConnectionChange?: (event: { up: boolean; message: string }) => void;
  /** The local clock (ms, monotonic) of the estimate of Redis's clock; injected by tests. */
  monotonicMs?: () => number;
}

/**
 * Connects to Redis and waits until it answers; throws StateUnavailableError (redacted URL, reason)
 * when it does not within `connectWaitMs`. Once open, a lost connection is retried without end, and
 * commands fail at once while it is down (no offline queue), so requests fail closed instead of waiting.
 */
export async function openRedisState(url: string, options: RedisStateOptions = {}): Promise<RedisState> {
  const shown = redactedUrl(url);
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    // A command in flight when the connection drops is failed, not resent: resending one that
    // Redis already ran would count a request twice.
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 5000,
    retryStrategy: retryDelay,
    connectionName: 'pdsnap',
    // Off: the requests of one turn of the event loop already go out as one script call
    // (RedisUsageLedger.admit), and with it on the server's young generation promoted about 1 MB
    // per scavenge under load (scavenges of 3 to 5 ms instead of under 1 ms), which made the tail latency.
    enableAutoPipelining: false,
  }) as PdsnapRedis;
  // No numberOfKeys: it is the first argument of each call, as the batch's size varies.
  client.defineCommand('pdsnapAdmitBatch', { lua: ADMIT_BATCH_LUA });
  client.defineCommand('pdsnapRelease', { numberOfKeys: 1, lua: RELEASE_LUA });
  client.defineCommand('pdsnapCreateKey', { numberOfKeys: 2, lua: CREATE_KEY_LUA });
  client.defineCommand('pdsnapRevokeKey', { numberOfKeys: 1, lua: REVOKE_KEY_LUA });

  let lastError: Error | null = null;
  let up = false;
  // Set by RedisState.close: the connection then ends on purpose, which is no outage to log.
  const closing = { now: false };
  client.on('error', (error: Error) => {
    lastError = error;
  });
  const clock = new RedisClock(() => client.time(), options.monotonicMs);
  client.on('ready', () => {
    if (!up) options.onConnectionChange?.({ up: true, message: `state store ${shown} reachable` });
    up = true;
    // Another connection may reach another Redis (a failover): measure its clock before the next call.
    clock.invalidate();
  });
  client.on('close', () => {
    if (up && !closing.now)
      options.onConnectionChange?.({
        up: false,
        message: `state store ${shown} lost${lastError ? `: ${describeError(lastError)}` : ''}; answering 503 until it is back`,
      });
    up = false;
  });

  client.connect().catch(() => {});
  const waitMs = options.connectWaitMs ?? 10_000;
  const ready = await new Promise<boolean>((resolve) => {
    if (client.status === 'ready') return resolve(true);
    const timer = setTimeout(() => resolve(false), waitMs);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  if (!ready) {
    client.disconnect();
    // Set by the error listener, which TypeScript's narrowing does not see.
    const failure = lastError as Error | null;
    const reason = failure ? describeError(failure) : `no answer within ${waitMs / 1000} s`;
    // A TLS hello to a plain Redis gets no answer at all: the handshake waits until it times out.
    const hint =
      /^rediss:/i.test(url) && (failure === null || /ETIMEDOUT|timed? ?out/i.test(failure.message))
        ? ' (rediss:// speaks TLS; a server without TLS never answers it: is it redis://?)'
        : '';
    throw new StateUnavailableError(`cannot reach the state store ${shown}: ${reason}${hint}`);
  }
  // ioredis reports "ready" although the SELECT of the URL's database failed, and then works in
  // database 0: a typo in the number would put keys and counts in another deployment's database.
  const database = client.options.db ?? 0;
  try {
    await client.select(database);
  } catch (error) {
    client.disconnect();
    throw new StateUnavailableError(`the state store ${shown} has no database ${database}: ${describeError(error as Error)}`);
  }
  return new RedisState(client, shown, options.keyCacheMs ?? DEFAULT_REDIS_KEY_CACHE_MS, clock, closing);
}

/** An error's message without anything a URL could have put into it. */
function describeError(error: Error): string {
  return error.message.replace(/\/\/[^@\s/]*@/g, '//***@');
}

export class RedisState implements StateStore {
  readonly keys: RedisKeyDirectory;
  readonly usage: RedisUsageLedger;

  constructor(
    private readonly client: PdsnapRedis,
    readonly description: string,
    keyCacheMs: number,
    private readonly clock: RedisClock,
    private readonly closing: { now: boolean } = { now: false },
  ) {
    this.keys = new RedisKeyDirectory(client, keyCacheMs);
    this.usage = new RedisUsageLedger(client, clock);
  }

  /**
   * For a server, before it answers: measures Redis's clock, which admissions need (`keys` and
   * `usage` never do), so that a Redis user without the TIME command fails the start, not every request.
   */
  async measureClock(): Promise<void> {
    try {
      await this.clock.measure();
    } catch (error) {
      throw new StateUnavailableError(
        `the state store ${this.description} did not answer TIME, which a server needs to count requests: ${describeError(error as Error)}`,
      );
    }
  }

  /** The deployment's cursor secret: created once (SET NX) by whichever instance comes first. */
  async cursorSecret(): Promise<string> {
    await guarded(this.client.set(CURSOR_SECRET, randomBytes(32).toString('hex'), 'NX'));
    const secret = await guarded(this.client.get(CURSOR_SECRET));
    if (secret === null || secret.length < 32) throw new Error(`${CURSOR_SECRET} in ${this.description} must hold at least 32 characters`);
    return secret;
  }

  /** Ends the connection on purpose (at shutdown): no "lost" line in the log, resolved once it has ended. */
  async close(): Promise<void> {
    if (this.client.status === 'end') return;
    this.closing.now = true;
    const ended = new Promise<void>((resolve) => this.client.once('end', () => resolve()));
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
    // While Redis is down there is no socket left to end and ioredis never says 'end': a shutdown
    // must not wait for it (the flag above already keeps a late event out of the log).
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
  }
}

/** The longest a close waits for the connection to say it has ended. */
const CLOSE_WAIT_MS = 1000;

/** Turns any failure of a Redis command into StateUnavailableError: requests fail closed on it. */
async function guarded<T>(command: Promise<T>): Promise<T> {
  try {
    return await command;
  } catch (error) {
    throw new StateUnavailableError(`state store did not answer: ${describeError(error as Error)}`, { cause: error });
  }
}

class RedisKeyDirectory implements KeyDirectory {
  private readonly cache = new Map<string, { record: KeyRecord | null; until: number }>();
  private readonly inFlight = new Map<string, Promise<KeyRecord | null>>();

  constructor(
    private readonly client: PdsnapRedis,
    private readonly cacheMs: number,
  ) {}

  /**
   * Answers from a cache (a monotonic clock, not the injected "now"): a key found is reused for
   * `cacheMs`, an id found unknown for at most REDIS_UNKNOWN_KEY_CACHE_MS, so Redis sees one lookup
   * per key and instance in that time however busy the key is; concurrent misses share one lookup.
   * What is reused only authenticates: admission checks the record in Redis itself (admit).
   */
  keyById(id: string, fresh = false): Promise<KeyRecord | null> {
    const at = performance.now();
    const cached = this.cache.get(id);
    if (!fresh && cached && cached.until > at) return Promise.resolve(cached.record);
    const pending = this.inFlight.get(id);
    if (!fresh && pending) return pending;
    const lookup = this.fetch(id)
      .then((record) => {
        const keepMs = record ? this.cacheMs : Math.min(this.cacheMs, REDIS_UNKNOWN_KEY_CACHE_MS);
        if (keepMs > 0) {
          if (this.cache.size >= 100_000) this.cache.clear();
          this.cache.set(id, { record, until: performance.now() + keepMs });
        }
        return record;
      })
      .finally(() => {
        if (this.inFlight.get(id) === lookup) this.inFlight.delete(id);
      });
    this.inFlight.set(id, lookup);
    return lookup;
  }

  private async fetch(id: string): Promise<KeyRecord | null> {
    const fields = await guarded(this.client.hgetall(keyHash(id)));
    return Object.keys(fields).length === 0 ? null : recordFromHash(id, fields);
  }

  async list(): Promise<KeyRecord[]> {
    const ids = (await guarded(this.client.smembers(KEY_IDS))).sort();
    const pipeline = this.client.pipeline();
    for (const id of ids) pipeline.hgetall(keyHash(id));
    const replies = (await guarded(pipeline.exec())) ?? [];
    const records: KeyRecord[] = [];
    replies.forEach(([error, fields], index) => {
      if (error) throw new StateUnavailableError(`state store did not answer: ${describeError(error)}`);
      const hash = fields as Record<string, string>;
      if (Object.keys(hash).length > 0) records.push(recordFromHash(ids[index]!, hash));
    });
    return records.sort((a, b) => compareText(a.createdAt, b.createdAt) || compareText(a.id, b.id));
  }

  async create(input: NewKeyInput, now: Date): Promise<{ record: KeyRecord; secret: string }> {
    for (;;) {
      const generated = generateKeySecret();
      const record = newKeyRecord(input, generated, now);
      const fields = [
        'id',
        record.id,
        'name',
        record.name,
        'scopes',
        record.scopes.join(','),
        'tier',
        record.tier,
        'createdAt',
        record.createdAt,
        'secretSha256',
        record.secretSha256,
      ];
      // 48-bit ids collide only by astronomical bad luck, but a duplicate would shadow a key.
      if ((await guarded(this.client.pdsnapCreateKey(keyHash(record.id), KEY_IDS, record.id, ...fields))) === 1) {
        return { record, secret: generated.secret };
      }
    }
  }

  async revoke(id: string, now: Date): Promise<{ record: KeyRecord; alreadyRevoked: boolean }> {
    const outcome = await guarded(this.client.pdsnapRevokeKey(keyHash(id), now.toISOString()));
    if (outcome === -1) throw new KeyNotFoundError(`no key with id ${id} in the state store`);
    const record = await this.fetch(id);
    if (!record) throw new KeyNotFoundError(`no key with id ${id} in the state store`);
    this.cache.delete(id);
    return { record, alreadyRevoked: outcome === 0 };
  }
}

/** A key hash back into a checked record; a hash edited into something invalid names the key and field. */
function recordFromHash(id: string, fields: Record<string, string>): KeyRecord {
  const result = KeyRecord.safeParse({
    id: fields.id,
    name: fields.name,
    scopes: fields.scopes === undefined ? undefined : fields.scopes.split(','),
    tier: fields.tier,
    createdAt: fields.createdAt,
    revokedAt: fields.revokedAt ?? null,
    secretSha256: fields.secretSha256,
  });
  if (!result.success) throw new KeyRecordError(`${keyHash(id)}: ${formatZodIssues(result.error, undefined, '(record)')}`);
  if (result.data.id !== id) throw new KeyRecordError(`${keyHash(id)}: id: does not match ${keyHash(id)}`);
  return result.data;
}

class RedisUsageLedger implements UsageLedger {
  private pending: PendingAdmission[] = [];

  constructor(
    private readonly client: PdsnapRedis,
    private readonly clock: RedisClock,
  ) {}

  /**
   * The admissions asked for while the event loop handles one batch of I/O go to Redis together,
   * as one script call (ADMIT_BATCH_LUA) instead of one round trip each: Redis still decides them
   * one after the other and atomically, so two instances can never both admit the request after
   * the limit, and each is answered only once Redis has counted it. A call that Redis starts too
   * late counts nothing (ADMIT_BATCH_LUA), so a request answered 503 was not counted.
   */
  admit(
    keyId: string,
    tier: TierName,
    month: string,
    windowStart: number,
    limits: AdmissionLimits,
    authorizedOn?: KeyRecord,
    billed = true,
  ): Promise<CountedAdmission> {
    return new Promise((resolve, reject) => {
      this.pending.push({ keyId, tier, month, windowStart, limits, authorizedOn, billed, resolve, reject });
      if (this.pending.length === 1) setImmediate(this.sendPending);
    });
  }

  private readonly sendPending = (): void => {
    const waiting = this.pending;
    this.pending = [];
    for (let from = 0; from < waiting.length; from += ADMIT_BATCH_MAX) {
      void this.decide(waiting.slice(from, from + ADMIT_BATCH_MAX));
    }
  };

  private async decide(batch: PendingAdmission[]): Promise<void> {
    const keys: string[] = [];
    const args: Array<string | number> = [];
    for (const { keyId, tier, month, windowStart, limits, authorizedOn, billed } of batch) {
      keys.push(monthHash(month), windowCounter(keyId, windowStart), keyHash(keyId));
      // Two windows: long enough for a server whose clock is a little behind, short enough to stay small.
      args.push(keyId, tier, limits.hardCapPerMonth, limits.requestsPerMinute, 2 * WINDOW_SECONDS);
      args.push(authorizedOn?.secretSha256 ?? '', authorizedOn?.scopes.join(',') ?? '', billed ? 1 : 0);
    }
    let replies: number[];
    try {
      args.push(Math.floor((await guarded(this.clock.nowOnRedisMs())) + LATE_AFTER_MS));
      replies = await guarded(this.client.pdsnapAdmitBatch(keys.length, ...keys, ...args));
      if (replies.length === 1 && replies[0] === -3) {
        // Redis held the call too long, or the estimate of its clock is behind: measure it again.
        this.clock.invalidate();
        throw new StateUnavailableError(
          `state store started an admission call more than ${LATE_AFTER_MS} ms after it was sent (paused or busy); it counted nothing`,
        );
      }
      if (replies.length !== 3 * batch.length)
        throw new Error(`admission script answered ${replies.length} values for ${batch.length} requests`);
    } catch (error) {
      for (const admission of batch) admission.reject(error);
      return;
    }
    batch.forEach((admission, index) => {
      const [admitted, monthBefore, windowBefore] = replies.slice(3 * index, 3 * index + 3) as [number, number, number];
      if (admitted === -2) {
        const { keyId, month, windowStart } = admission;
        admission.reject(
          new StateUnavailableError(
            `state store: ${monthHash(month)}, ${windowCounter(keyId, windowStart)} or ${keyHash(keyId)} holds something other than pdsnap's counts and key record (edited by hand?); ${keyId} is not counted`,
          ),
        );
      } else if (admitted === -1) {
        admission.resolve({ admitted: false, before: { month: 0, window: 0 }, stale: true });
      } else {
        admission.resolve({ admitted: admitted === 1, before: { month: monthBefore, window: windowBefore } });
      }
    });
  }

  async counts(keyId: string, month: string, windowStart: number): Promise<UsageCounts> {
    const [monthCount, windowCount] = await Promise.all([
      guarded(this.client.hget(monthHash(month), `${keyId}:requests`)),
      guarded(this.client.get(windowCounter(keyId, windowStart))),
    ]);
    return { month: Number(monthCount ?? 0), window: Number(windowCount ?? 0) };
  }

  async release(keyId: string, month: string): Promise<void> {
    await guarded(this.client.pdsnapRelease(monthHash(month), keyId));
  }

  async monthlyUsage(month: string): Promise<MonthlyUsageRow[]> {
    const fields = await guarded(this.client.hgetall(monthHash(month)));
    const rows = new Map<string, MonthlyUsageRow>();
    for (const [field, value] of Object.entries(fields)) {
      const cut = field.lastIndexOf(':');
      const keyId = field.slice(0, cut);
      const row = rows.get(keyId) ?? { keyId, tier: 'member', requests: 0, rejected: 0 };
      const part = field.slice(cut + 1);
      if (part === 'requests') row.requests = Number(value);
      else if (part === 'rejected') row.rejected = Number(value);
      else if (part === 'tier' && (value === 'member' || value === 'premium')) row.tier = value;
      rows.set(keyId, row);
    }
    return [...rows.values()].sort((a, b) => compareText(a.keyId, b.keyId));
  }
}

interface PendingAdmission {
  keyId: string;
  tier: TierName;
  month: string;
  windowStart: number;
  limits: AdmissionLimits;
  authorizedOn: KeyRecord | undefined;
  billed: boolean;
  resolve: (admission: CountedAdmission) => void;
  reject: (error: unknown) => void;
}
