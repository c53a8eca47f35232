import { deriveArticles } from '../../derive/articles.js';
import { deriveCalendar } from '../../derive/calendar.js';
import type { LeftOutCounts } from '../../derive/smart-money/index.js';
import { ingestArticles } from '../../ingest/articles/index.js';
import { ingestCalendar } from '../../ingest/calendar/index.js';
import { ingestFilings } from '../../ingest/filings/index.js';
import type { DatasetName } from '../../model/dataset.js';
import type { DatasetBuild, DerivedFacts, IngestResult, KeptDerivation, RecordSink } from '../../model/dataset-build.js';
import { type KeyedCache, NO_CACHE } from '../../lib/keyed-file-cache.js';
import { keepSmartMoney, keptSmartMoney, smartMoneyInputs, smartMoneyKey } from './derivation-cache.js';
import type { BuildNote, Rejection } from '../../model/report.js';
import { SILENT_PROGRESS, type Progress } from '../../model/progress.js';
import type { FreshnessLimits } from '../../validate/limits.js';
import type { SnapshotStore } from '../../publish/snapshot-store.js';
import { InvestorBatchCache } from './investor-batch-cache.js';
import { deriveSmartMoneyInto } from './smart-money-workers.js';

export interface RecipeContext {
  sourcesDir: string;
  now: Date;
  limits: FreshnessLimits;
  allFilers: boolean;
  /** --strict: filings whose cover page totals disagree are rejected at ingest instead of noted. */
  strict: boolean;
  /** --allow-stale: Smart Money keeps investors past the quarter-age rule (docs/smart-money.md). */
  allowStale: boolean;
  progress: Progress;
  /** Form 13F data sets read at once in worker threads; undefined: one per core. */
  ingestThreads?: number | undefined;
  /** The derivation cache (derivation-cache.ts); NO_CACHE with --no-cache. */
  cache: KeyedCache;
  /** Threads that derive Smart Money investors; undefined: one per core for a large build. */
  deriveThreads?: number | undefined;
  /** The store published to: the derivation cache reads the lines of investor batches back from its parts. */
  store: Pick<SnapshotStore, 'location' | 'readBlobRange'>;
}

/**
 * A dataset with one resource: ingest everything (reads files), then derive the records (pure) and
 * push them into the sink in published order.
 */
function singleResourceRecipe<In, Out>(
  dataset: DatasetName,
  resource: string,
  ingest: (sourcesDir: string) => Promise<IngestResult<In>>,
  derive: (records: In[], now: Date) => { records: Out[]; rejections: Rejection[]; notes?: BuildNote[]; facts: DerivedFacts['facts'] },
): (ctx: RecipeContext) => Promise<DatasetBuild> {
  return async ({ sourcesDir, now }) => {
    const ingested = await ingest(sourcesDir);
    return {
      dataset,
      sources: ingested.sources,
      rejections: ingested.rejections,
      notes: ingested.notes,
      derive(sink) {
        const derived = derive(ingested.records, now);
        for (const record of derived.records) sink.add(resource, record);
        return { facts: derived.facts, rejections: derived.rejections, notes: derived.notes ?? [] };
      },
    };
  };
}

/** How each dataset goes from its sources to records: ingest (reads files), then derive (pure). */
export const RECIPES: Record<DatasetName, (ctx: RecipeContext) => Promise<DatasetBuild>> = {
  articles: singleResourceRecipe('articles', 'articles', ingestArticles, deriveArticles),
  calendar: singleResourceRecipe('calendar', 'events', ingestCalendar, deriveCalendar),

  async 'smart-money'(ctx) {
    const { sourcesDir, now, limits, allFilers, strict, allowStale, progress, ingestThreads, deriveThreads, cache, store } = ctx;
    const maxQuarterAgeDays = limits['smart-money'].maxQuarterAgeDays;
    const inputs = cache === NO_CACHE ? null : await smartMoneyInputs(sourcesDir);
    const key = inputs && smartMoneyKey(inputs, { now, maxQuarterAgeDays, allFilers, allowStale, strict });
    const ingest = () =>
      ingestFilings(sourcesDir, progress, {
        strictTotals: strict,
        // Without a cache nothing is hashed before the data sets are read: they are hashed as they are.
        ...(cache === NO_CACHE ? {} : { cache }),
        ...(inputs ? { provenance: inputs.provenance } : {}),
        ...(ingestThreads === undefined ? {} : { threads: ingestThreads }),
      });
    const batchCache = inputs === null ? undefined : await InvestorBatchCache.open({ cache, store, sources: inputs.files });
    const deriveFrom = async (ingested: Awaited<ReturnType<typeof ingest>>, sink: RecordSink): Promise<DerivedFacts> => {
      // A bar of investors derived, out of those planned; the summary counts the records written.
      let step = SILENT_PROGRESS.step('');
      let records = 0;
      const derived = await deriveSmartMoneyInto(
        sink,
        { catalog: ingested.catalog, registry: ingested.registry, allFilers, now, maxQuarterAgeDays, keepStaleInvestors: allowStale },
        {
          threads: deriveThreads,
          batchCache,
          onPlanned: (investors) => {
            step = progress.step('smart-money: derive and write investors', investors);
          },
          onWritten: (investors, lines) => {
            records += lines;
            step.advance(investors);
          },
        },
      );
      for (const row of derived.consensus) sink.add('consensus', row);
      step.done(`${records + derived.consensus.length} records written (${derived.consensus.length} consensus rows)`);
      const { written, reused } = derived.investors;
      const reuseNote =
        batchCache === undefined
          ? []
          : [
              {
                source: BATCH_CACHE_NOTE_SOURCE,
                message: `${reused} of ${written} investor(s) read back from the parts of an earlier build, ${written - reused} derived`,
              },
            ];
      return {
        facts: { ...derived.facts, filingsWithDisagreeingTotals: ingested.totalsDisagreements },
        rejections: [],
        notes: [...derived.notes, ...reuseNote],
        ...leftOutText(derived.leftOut, maxQuarterAgeDays),
      };
    };

    const kept = key === null ? null : await keptSmartMoney(cache, key);
    if (kept !== null && inputs !== null) {
      // The same inputs as a build before: what it derived is offered to the store (reuse); only
      // when the store no longer holds those files is anything read or derived again.
      const byPath = new Map(inputs.files.map((file) => [file.path, file]));
      return {
        dataset: 'smart-money',
        sources: kept.sourcePaths.map((file) => byPath.get(file)!),
        rejections: kept.rejections,
        notes: kept.notes,
        reuse: kept.derivation,
        derive: async (sink) => deriveFrom(await ingest(), sink),
      };
    }
    const ingested = await ingest();
    return {
      dataset: 'smart-money',
      sources: ingested.sources,
      rejections: ingested.rejections,
      notes: ingested.notes,
      derive: (sink) => deriveFrom(ingested, sink),
      ...(key === null
        ? {}
        : {
            remember: async (derivation: KeptDerivation) => {
              await batchCache?.remember(derivation.files);
              await keepSmartMoney(cache, key, {
                sourcePaths: ingested.sources.map((file) => file.path),
                rejections: ingested.rejections,
                notes: ingested.notes,
                // What this build read back is its own news: a build that reuses the whole derivation says so itself.
                derivation: {
                  ...derivation,
                  derived: {
                    ...derivation.derived,
                    notes: derivation.derived.notes.filter((note) => note.source !== BATCH_CACHE_NOTE_SOURCE),
                  },
                },
              });
            },
          }),
    };
  },
};

/** The build note that says how many investors the derivation cache gave back. */
const BATCH_CACHE_NOTE_SOURCE = 'derivation cache (investors)';

/** The investors left out, by rule, in the words of the build report; nothing when none was. */
function leftOutText(left: LeftOutCounts, maxQuarterAgeDays: number): { leftOut?: string } {
  const parts = [
    left.staleQuarter > 0
      ? `${left.staleQuarter} investor(s) left out by the ${maxQuarterAgeDays}-day quarter rule (latest report period too old; --allow-stale publishes them as a stale snapshot)`
      : '',
    left.noHoldingsReport > 0 ? `${left.noHoldingsReport} filed no holdings report` : '',
    left.noFiling > 0 ? `${left.noFiling} registry investor(s) have no Form 13F filing in the sources` : '',
  ].filter(Boolean);
  return parts.length === 0 ? {} : { leftOut: parts.join('; ') };
}
