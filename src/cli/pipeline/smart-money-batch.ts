import { type ConsensusAccumulator, deriveInvestorRecords, type InvestorPlan } from '../../derive/smart-money/index.js';
import type { FilingCatalog } from '../../model/filing.js';
import { ContentCheck } from '../../model/content-rules.js';
import type { CheckedBatch, CheckedLines } from '../../model/dataset-build.js';
import { compareText } from '../../lib/text-order.js';
import { InvalidRecordError, RecordChecks } from '../../publish/resource-writer.js';
import { lineWritersFor } from '../../publish/staging-writer.js';
import { keptBatchEntry } from './kept-batch.js';
import { HoldingsPacker } from './packed-holdings.js';

/** A batch of investors made into lines (their bytes kept as `P`), and what the build learns from them besides. */
export interface SmartMoneyBatch<P = Uint8Array> extends Omit<CheckedBatch, 'lines'> {
  lines: Array<Omit<CheckedLines, 'bytes'> & { bytes: P }>;
  /** How many investors it holds (for progress). */
  investors: number;
  /** The earliest report period of its investors, if it has any. */
  oldestPeriod?: string;
  /** Asked for by a build with a derivation cache: the cache entry of the batch (kept-batch.ts), its lines aside. */
  keptEntry?: Uint8Array;
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
  const packer = forCache ? new HoldingsPacker() : null;
  /** Each chunk's length, for the cache entry (`keep` may hand back a place, not bytes). */
  const lengths: number[] = [];
  const writers = lineWritersFor('smart-money', checks, {
    write: (chunk) => {
      lengths.push(chunk.bytes.length);
      lines.push({ ...chunk, bytes: keep(chunk.bytes) });
    },
  });
  const investors = writers.get('investors')!;
  const trades = writers.get('trades')!;
  let oldestPeriod: string | undefined;
  try {
    for (const plan of plans) {
      const derived = deriveInvestorRecords(plan, catalog);
      const holdings = consensus.add(derived.detail.slug, derived.shownPositions);
      packer?.add(derived.detail.slug, holdings);
      if (oldestPeriod === undefined || compareText(derived.detail.period, oldestPeriod) < 0) oldestPeriod = derived.detail.period;
      investors.write(derived.detail);
      for (const trade of derived.trades) trades.write(trade);
    }
    investors.release();
    trades.release();
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
  const batch: SmartMoneyBatch<P> = {
    lines,
    content: content.state(),
    investors: plans.length,
    ...(oldestPeriod === undefined ? {} : { oldestPeriod }),
  };
  if (packer !== null) {
    const sized = { ...batch, lines: lines.map((line, i) => ({ ...line, bytes: { length: lengths[i]! } })) };
    batch.keptEntry = keptBatchEntry(sized, packer.pack());
  }
  return batch;
}
