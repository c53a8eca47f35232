import { createHash, type Hash } from 'node:crypto';
import { type ConsensusAccumulator, consensusHoldings, deriveInvestorRecords, type InvestorPlan } from '../../derive/smart-money/index.js';
import type { FilingCatalog } from '../../model/filing.js';
import { ContentCheck } from '../../model/content-rules.js';
import type { CheckedBatch, CheckedLines } from '../../model/dataset-build.js';
import { compareText } from '../../lib/text-order.js';
import { InvalidRecordError, RecordChecks } from '../../publish/resource-writer.js';
import { lineWritersFor } from '../../publish/staging-writer.js';
import { HoldingsPacker, type PackedHoldings } from './packed-holdings.js';

/** A batch of investors made into lines (their bytes kept as `P`), and what the build learns from them besides. */
export interface SmartMoneyBatch<P = Uint8Array> extends Omit<CheckedBatch, 'lines'> {
  lines: Array<Omit<CheckedLines, 'bytes'> & { bytes: P }>;
  /** How many investors it holds (for progress). */
  investors: number;
  /** The earliest report period of its investors, if it has any. */
  oldestPeriod?: string;
  /** Asked for by a build with a derivation cache: what the cache keeps of the batch besides its lines. */
  forCache?: BatchForCache;
}

/** What the derivation cache needs of a derived batch beyond its lines (investor-batch-cache.ts). */
export interface BatchForCache {
  /** Each resource's lines taken together: how many, their length and digest. */
  resources: ResourceLinesDigest[];
  /** What its investors added to consensus. */
  holdings: PackedHoldings;
}

export interface ResourceLinesDigest {
  resource: string;
  records: number;
  bytes: number;
  sha256: string;
}

/**
 * Derives a batch of investors (consecutive plans, in published order) and makes their records into
 * lines exactly as a staged bundle's `add` would: each checked against its schema and the content
 * rules, serialized, and described for the serving index. Their consensus input goes into
 * `consensus`. The same function runs in the derivation's worker threads and, without them, on the
 * main thread, so the bundle is the same bytes either way. Each chunk of lines is handed to `keep`,
 * which makes it the batch's (a copy by default; a worker's goes into its ring of shared memory).
 */
export function deriveBatch<P = Uint8Array>(
  plans: readonly InvestorPlan[],
  catalog: Pick<FilingCatalog, 'rows' | 'eachRow'>,
  consensus: ConsensusAccumulator,
  keep: (bytes: Uint8Array) => P = (bytes) => new Uint8Array(bytes) as P,
  forCache = false,
): SmartMoneyBatch<P> {
  const content = new ContentCheck('smart-money');
  const checks = new RecordChecks('smart-money', content);
  const lines: SmartMoneyBatch<P>['lines'] = [];
  const digests = new Map<string, { records: number; bytes: number; hash: Hash }>();
  const packer = forCache ? new HoldingsPacker() : null;
  const writers = lineWritersFor('smart-money', checks, {
    write: (chunk) => {
      if (forCache) {
        let digest = digests.get(chunk.resource);
        if (digest === undefined) {
          digest = { records: 0, bytes: 0, hash: createHash('sha256') };
          digests.set(chunk.resource, digest);
        }
        digest.records += chunk.records;
        digest.bytes += chunk.bytes.length;
        digest.hash.update(chunk.bytes);
      }
      lines.push({ ...chunk, bytes: keep(chunk.bytes) });
    },
  });
  const investors = writers.get('investors')!;
  const trades = writers.get('trades')!;
  let oldestPeriod: string | undefined;
  try {
    for (const plan of plans) {
      const derived = deriveInvestorRecords(plan, catalog);
      const holdings = consensusHoldings(derived.shownPositions);
      consensus.addHoldings(derived.detail.slug, holdings);
      packer?.add(derived.detail.slug, holdings);
      if (oldestPeriod === undefined || compareText(derived.detail.period, oldestPeriod) < 0) oldestPeriod = derived.detail.period;
      investors.write(derived.detail);
      for (const trade of derived.trades) trades.write(trade);
    }
    investors.end();
    trades.end();
  } catch (error) {
    // A record that fails its schema fails the build, named by its number in the bundle, which
    // only the thread that writes the batches in order knows.
    if (!(error instanceof InvalidRecordError)) throw error;
    return {
      lines: [],
      content: content.state(),
      invalid: { resource: error.resource, index: error.index, reason: error.reason },
      investors: plans.length,
    };
  }
  return {
    lines,
    content: content.state(),
    investors: plans.length,
    ...(oldestPeriod === undefined ? {} : { oldestPeriod }),
    ...(packer === null
      ? {}
      : {
          forCache: {
            resources: [...digests].map(([resource, d]) => ({
              resource,
              records: d.records,
              bytes: d.bytes,
              sha256: d.hash.digest('hex'),
            })),
            holdings: packer.pack(),
          },
        }),
  };
}
