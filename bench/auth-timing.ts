import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { median } from '../src/lib/median.js';
import { readRequestLog } from './measure.js';

/** One class of failed authentication: its latency medians, client side and in the server's own log. */
export interface AuthClassTiming {
  clientMedianUs: number;
  /** From the server's request log (`latencyMs`, to 10 µs); undefined when it holds none of them. */
  serverMedianUs: number | undefined;
}

export interface AuthTimingResult {
  triesPerClass: number;
  addresses: number;
  unknownId: AuthClassTiming;
  wrongSecret: AuthClassTiming;
  /** Median of the wrong-secret class minus the unknown-id class, client side, and its 95 % bootstrap interval. */
  differenceUs: { median: number; low: number; high: number };
}

/** Loopback addresses the tries come from (127.0.1.1 and up): each stays under the failed-authentication throttle. */
const ADDRESSES = 200;
const WARM_UP_TRIES = 500;

/**
 * Whether a key id exists must not show in the time a wrong key takes. Sends well-formed keys with
 * a wrong secret, alternately for an id that exists and one that does not, one request at a time
 * (so the two classes share every drift of the machine), from ADDRESSES loopback addresses so that
 * no address reaches the throttle of 100 failed attempts a minute, and compares the classes' medians.
 */
export async function measureAuthTiming(
  base: string,
  knownSecrets: readonly string[],
  triesPerClass: number,
  logFile?: string,
): Promise<AuthTimingResult> {
  const knownIds = knownSecrets.map((secret) => /^pds_live_([0-9a-f]{12})_/.exec(secret)![1]!);
  const known = new Set(knownIds);
  const agents = Array.from(
    { length: ADDRESSES },
    (_, i) => new Agent({ keepAlive: true, maxSockets: 1, localAddress: `127.0.1.${i + 1}` }),
  );
  const samples = {
    unknownId: [] as Array<{ us: number; requestId: string }>,
    wrongSecret: [] as Array<{ us: number; requestId: string }>,
  };
  try {
    for (let i = 0; i < WARM_UP_TRIES + 2 * triesPerClass; i++) {
      const kind = i % 2 === 0 ? 'unknownId' : 'wrongSecret';
      let id = knownIds[(i >> 1) % knownIds.length]!;
      if (kind === 'unknownId') {
        do id = randomBytes(6).toString('hex');
        while (known.has(id));
      }
      const key = `pds_live_${id}_${randomBytes(24).toString('base64url')}`;
      const answer = await timedGet(`${base}/v1/articles?limit=1`, agents[i % ADDRESSES]!, key);
      if (answer.status !== 401) throw new Error(`auth timing: a wrong key answered ${answer.status}, not 401`);
      if (i >= WARM_UP_TRIES) samples[kind].push(answer);
    }
  } finally {
    for (const agent of agents) agent.destroy();
  }
  const logged = logFile === undefined ? new Map<string, number>() : await loggedLatencies(logFile);
  const timing = (list: Array<{ us: number; requestId: string }>): AuthClassTiming => {
    const server = list.map((s) => logged.get(s.requestId)).filter((ms): ms is number => ms !== undefined);
    return {
      clientMedianUs: Math.round(median(list.map((s) => s.us))!),
      serverMedianUs: server.length === 0 ? undefined : Math.round(median(server)! * 1000),
    };
  };
  return {
    triesPerClass,
    addresses: ADDRESSES,
    unknownId: timing(samples.unknownId),
    wrongSecret: timing(samples.wrongSecret),
    differenceUs: bootstrapMedianDifference(
      samples.wrongSecret.map((s) => s.us),
      samples.unknownId.map((s) => s.us),
    ),
  };
}

function timedGet(url: string, agent: Agent, key: string): Promise<{ status: number; us: number; requestId: string }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    request(url, { agent, headers: { authorization: `Bearer ${key}` } }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          us: Number(process.hrtime.bigint() - started) / 1000,
          requestId: String(response.headers['x-request-id'] ?? ''),
        }),
      );
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

async function loggedLatencies(logFile: string): Promise<Map<string, number>> {
  // The log is written asynchronously: give the last lines a moment to reach the file.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const latencies = new Map<string, number>();
  for (const entry of await readRequestLog(logFile)) if (entry.requestId) latencies.set(entry.requestId, entry.latencyMs);
  return latencies;
}

/** median(a) - median(b), and the 2.5th and 97.5th percentiles of that difference over 1,000 resamples of each. */
function bootstrapMedianDifference(a: readonly number[], b: readonly number[]): { median: number; low: number; high: number } {
  const resample = (values: readonly number[]) => median(Array.from(values, () => values[Math.floor(Math.random() * values.length)]!))!;
  const differences = Array.from({ length: 1000 }, () => resample(a) - resample(b)).sort((x, y) => x - y);
  const round = (us: number) => Math.round(us * 10) / 10;
  return { median: round(median(a)! - median(b)!), low: round(differences[25]!), high: round(differences[974]!) };
}

export function formatAuthTiming(result: AuthTimingResult): string[] {
  const server = (t: AuthClassTiming) => (t.serverMedianUs === undefined ? '' : `, server's own ${t.serverMedianUs} µs`);
  return [
    `  failed authentication, ${result.triesPerClass} tries a class from ${result.addresses} addresses, one at a time:`,
    `    unknown key id:               median ${result.unknownId.clientMedianUs} µs${server(result.unknownId)}`,
    `    existing key id, wrong secret: median ${result.wrongSecret.clientMedianUs} µs${server(result.wrongSecret)}`,
    `    difference (existing - unknown): ${result.differenceUs.median} µs, 95 % interval ${result.differenceUs.low} to ${result.differenceUs.high} µs`,
  ];
}
