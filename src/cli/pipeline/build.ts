import type { DatasetName } from '../../model/dataset.js';
import type { DatasetBuild, DerivedFacts } from '../../model/dataset-build.js';
import type { FreshnessFacts, RuleResult } from '../../model/freshness.js';
import type { Progress } from '../../model/progress.js';
import type { BuildNote, Rejection } from '../../model/report.js';
import { InvalidRecordError } from '../../publish/resource-writer.js';
import { BundleIntegrityError, BundleStore, type StagedBundle } from '../../publish/store.js';
import { evaluateFreshness, freshUntil } from '../../validate/freshness.js';
import type { FreshnessLimits } from '../../validate/limits.js';
import { RECIPES } from './recipes.js';

export interface BuildOptions {
  sourcesDir: string;
  storeDir: string;
  now: Date;
  datasets: DatasetName[];
  strict: boolean;
  allowStale: boolean;
  allFilers: boolean;
  limits: FreshnessLimits;
  progress: Progress;
}

export type DatasetOutcome = 'published' | 'unchanged' | 'failed';

export interface DatasetReport {
  dataset: DatasetName;
  outcome: DatasetOutcome;
  snapshotId: string | null;
  /** A new bundle was written. */
  published: boolean;
  /** current/<dataset>.json was moved to snapshotId. */
  madeCurrent: boolean;
  records: Record<string, number>;
  rejected: Rejection[];
  notes: BuildNote[];
  freshUntil: string | null;
  freshness: RuleResult[];
  /** Why the dataset failed; null otherwise. */
  reason: string | null;
}

export interface BuildReport {
  now: string;
  sources: string;
  store: string;
  ok: boolean;
  datasets: DatasetReport[];
}

/**
 * ingest -> derive -> validate -> publish, each dataset on its own: one dataset failing never
 * stops or changes another, and a failed dataset publishes nothing.
 */
export async function runBuild(options: BuildOptions): Promise<BuildReport> {
  const store = new BundleStore(options.storeDir);
  const reports: DatasetReport[] = [];
  for (const dataset of options.datasets) {
    reports.push(await buildDataset(dataset, store, options));
  }
  return {
    now: options.now.toISOString(),
    sources: options.sourcesDir,
    store: options.storeDir,
    ok: reports.every((r) => r.outcome !== 'failed'),
    datasets: reports,
  };
}

async function buildDataset(dataset: DatasetName, store: BundleStore, options: BuildOptions): Promise<DatasetReport> {
  const report: DatasetReport = {
    dataset,
    outcome: 'failed',
    snapshotId: null,
    published: false,
    madeCurrent: false,
    records: {},
    rejected: [],
    notes: [],
    freshUntil: null,
    freshness: [],
    reason: null,
  };
  const fail = (reason: string): DatasetReport => ({ ...report, outcome: 'failed', reason });

  let build: DatasetBuild;
  try {
    build = await RECIPES[dataset]({
      sourcesDir: options.sourcesDir,
      now: options.now,
      limits: options.limits,
      allFilers: options.allFilers,
      progress: options.progress,
    });
  } catch (error) {
    return fail(`could not read sources: ${(error as Error).message}`);
  }
  report.rejected = [...build.rejections];
  report.notes = [...build.notes];
  if (build.sources.length === 0) return fail(`no sources for ${dataset} under ${options.sourcesDir}`);
  if (options.strict && report.rejected.length > 0) return fail(`--strict: ${report.rejected.length} source record(s) rejected`);

  // Derivation streams its records straight into a private staging folder; nothing is visible to
  // readers until commit, and every check below can still discard it.
  let staged: StagedBundle;
  let derived: DerivedFacts;
  try {
    ({ staged, result: derived } = await store.stage(dataset, (sink) => build.derive(sink)));
  } catch (error) {
    if (error instanceof InvalidRecordError) return fail(`a derived record failed its schema check, not published: ${error.message}`);
    throw error;
  }
  report.rejected.push(...derived.rejections);
  report.notes.push(...derived.notes);
  report.records = Object.fromEntries(staged.resources.map((r) => [r.path, r.records]));
  const discardAndFail = async (reason: string) => {
    await store.discard(staged);
    return fail(reason);
  };

  if (options.strict && derived.rejections.length > 0) return discardAndFail(`--strict: ${report.rejected.length} source record(s) rejected`);
  const primary = PRIMARY_RESOURCE[dataset];
  if (report.records[primary] === 0) {
    return discardAndFail(`no ${primary.replace('.json', '')} records were produced; an empty snapshot is never published`);
  }
  const facts: FreshnessFacts = { generatedAt: options.now.toISOString(), ...derived.facts };
  report.freshness = evaluateFreshness(dataset, facts, options.now, { limits: options.limits, warnWithinMs: 0 });
  const failing = report.freshness.filter((r) => r.status === 'fail');
  if (failing.length > 0 && !options.allowStale) {
    return discardAndFail(`stale or invalid, not published: ${failing.map((r) => r.message).join('; ')}`);
  }
  const until = freshUntil(dataset, facts, options.limits).toISOString();
  report.freshUntil = until;

  let result;
  try {
    result = await store.commit(
      staged,
      { generatedAt: facts.generatedAt, facts, freshUntil: until, allowStale: failing.length > 0, sources: build.sources },
      options.now,
    );
  } catch (error) {
    // An existing bundle with this id that no longer verifies is never rewritten: someone must look at it.
    if (error instanceof BundleIntegrityError) return fail(`${error.message}; it is not rewritten and current is unchanged`);
    throw error;
  }
  return {
    ...report,
    outcome: result.published || result.madeCurrent ? 'published' : 'unchanged',
    snapshotId: result.snapshotId,
    published: result.published,
    madeCurrent: result.madeCurrent,
  };
}

/** The resource whose emptiness means the snapshot has nothing to serve. */
const PRIMARY_RESOURCE: Record<DatasetName, string> = {
  articles: 'articles.json',
  calendar: 'events.json',
  'smart-money': 'investors.json',
};
