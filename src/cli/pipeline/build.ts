import type { DatasetName } from '../../model/dataset.js';
import type { DatasetBuild, DerivedFacts } from '../../model/dataset-build.js';
import type { FreshnessFacts } from '../../model/freshness.js';
import type { RuleResult } from '../../model/rule-result.js';
import type { Progress } from '../../model/progress.js';
import type { BuildNote, Rejection } from '../../model/report.js';
import { LockError } from '../../lib/file-lock.js';
import { InvalidRecordError } from '../../publish/resource-writer.js';
import { openStore } from '../../publish/open-store.js';
import type { SnapshotStore } from '../../publish/snapshot-store.js';
import type { StagedBundle } from '../../publish/staged-bundle.js';
import { isBucketError, PublishFailure } from '../../publish/store-errors.js';
import { ContentCheck } from '../../model/content-rules.js';
import type { KeyedCache } from '../../lib/keyed-file-cache.js';
import { freshUntil } from '../../validate/freshness.js';
import type { FreshnessLimits } from '../../validate/limits.js';
import type { DriftThresholds } from '../../validate/drift.js';
import { recordsPerResource } from '../../model/manifest.js';
import { inFolder } from '../../publish/bundle-files.js';
import type { DriftSide } from './drift.js';
import { judgeCandidate, newerCurrentAdvice } from './promotion.js';
import { RECIPES } from './recipes.js';
import { type FetchLedger, readFetchLedger, withFetchProvenance } from '../../ingest/fetch-ledger.js';

export interface BuildOptions {
  sourcesDir: string;
  storeDir: string;
  now: Date;
  datasets: DatasetName[];
  strict: boolean;
  allowStale: boolean;
  allFilers: boolean;
  limits: FreshnessLimits;
  drift: DriftThresholds;
  /** --accept-drift: publish although drift checks fail, recording this reason in the manifest. */
  acceptDrift: string | null;
  /** false (--no-promote): publish a candidate and leave the pointer where it is. */
  promote: boolean;
  progress: Progress;
  /** Form 13F data sets read at once in worker threads (PDSNAP_INGEST_THREADS); default one per core. */
  ingestThreads?: number;
  /** The derivation cache (derivation-cache.ts); NO_CACHE with --no-cache. */
  cache: KeyedCache;
  /** Threads that derive Smart Money investors (PDSNAP_DERIVE_THREADS); default one per core for a large build. */
  deriveThreads?: number;
}

/** failed: the data was refused (stale, invalid, empty, --strict); error: the program failed. */
export type DatasetOutcome = 'published' | 'unchanged' | 'failed' | 'error';

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
  /** The drift checks against the current snapshot (driftBaseline); one pass-with-a-note rule for a first snapshot. */
  drift: RuleResult[];
  driftBaseline: string | null;
  /** Published with --no-promote: a candidate for pdsnap diff and pdsnap promote. */
  candidate: boolean;
  /** Why the dataset failed, or why a published snapshot was not made current; null otherwise. */
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
  const store = openStore(options.storeDir);
  const reports: DatasetReport[] = [];
  try {
    // A store that cannot take the result (a bucket that does not exist) stops the build before
    // anything is ingested, not after every dataset was derived.
    await store.prepare();
    // Where `pdsnap fetch` got each source file, for the manifests' sources[].
    const ledger = await readFetchLedger(options.sourcesDir);
    for (const dataset of options.datasets) {
      try {
        reports.push(await buildDataset(dataset, store, options, ledger));
      } catch (error) {
        // A fault of the program or the machine (disk full, lock timeout, a bug): this dataset is not
        // published, the others still are, and the report still says what happened. A lock that is
        // held or broken, or a bucket that refused, is the store's state, whose message already says
        // what to do: not "unexpected".
        const message = (error as Error).message;
        reports.push({
          ...emptyReport(dataset),
          outcome: 'error',
          reason: error instanceof LockError || isBucketError(error) ? message : `unexpected error: ${message}`,
        });
      }
    }
  } finally {
    await store.close();
  }
  return {
    now: options.now.toISOString(),
    sources: options.sourcesDir,
    store: options.storeDir,
    ok: reports.every((r) => r.outcome === 'published' || r.outcome === 'unchanged'),
    datasets: reports,
  };
}

function emptyReport(dataset: DatasetName): DatasetReport {
  return {
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
    drift: [],
    driftBaseline: null,
    candidate: false,
    reason: null,
  };
}

async function buildDataset(
  dataset: DatasetName,
  store: SnapshotStore,
  options: BuildOptions,
  ledger: FetchLedger,
): Promise<DatasetReport> {
  const report = emptyReport(dataset);
  const fail = (reason: string): DatasetReport => ({ ...report, outcome: 'failed', reason });

  let build: DatasetBuild;
  try {
    build = await RECIPES[dataset]({
      sourcesDir: options.sourcesDir,
      now: options.now,
      limits: options.limits,
      allFilers: options.allFilers,
      strict: options.strict,
      allowStale: options.allowStale,
      progress: options.progress,
      ingestThreads: options.ingestThreads,
      cache: options.cache,
      deriveThreads: options.deriveThreads,
      store,
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
  // The content rules (no security identifiers, slugs, consensus page size) see every line as it
  // is written, so build never publishes what validate and gate would then refuse.
  let staged: StagedBundle;
  let derived: DerivedFacts;
  let content: ContentCheck;
  // The same inputs as a build before (the derivation cache): its files, when the store still holds them.
  const reused = build.reuse ? await store.stageFromBlobs(dataset, build.reuse.files, build.reuse.servingIndex) : null;
  if (reused !== null && build.reuse) {
    staged = reused;
    derived = build.reuse.derived;
    content = new ContentCheck(dataset, build.reuse.content);
    report.notes.push({
      source: 'derivation cache',
      message: `the inputs are those of an earlier build: its ${staged.files.length} part(s) were taken as they are, nothing was read or derived again`,
    });
  } else {
    try {
      ({ staged, result: derived, content } = await store.stage(dataset, (sink) => build.derive(sink)));
    } catch (error) {
      if (error instanceof InvalidRecordError) return fail(`a derived record failed its schema check, not published: ${error.message}`);
      throw error;
    }
  }
  report.rejected.push(...derived.rejections);
  report.notes.push(...derived.notes);
  report.records = recordsPerResource(staged.files);
  const discardAndFail = async (reason: string) => {
    await store.discard(staged);
    return fail(reason);
  };

  if (options.strict && derived.rejections.length > 0)
    return discardAndFail(`--strict: ${report.rejected.length} source record(s) rejected`);
  const primary = PRIMARY_RESOURCE[dataset];
  if (report.records[primary] === 0) {
    const cause = derived.leftOut ? `: ${derived.leftOut}` : '';
    return discardAndFail(`no ${primary.replace('.json', '')} records were produced${cause}; an empty snapshot is never published`);
  }
  const contentFailures = content
    .results({ id: placeholderSnapshotId(dataset, options.now), generatedAt: options.now.toISOString() })
    .filter((r) => r.status === 'fail');
  if (contentFailures.length > 0)
    return discardAndFail(`content rules failed, not published: ${contentFailures.map((r) => r.message).join('; ')}`);

  const facts: FreshnessFacts = { generatedAt: options.now.toISOString(), ...derived.facts };
  const candidateSide: DriftSide = {
    label: `${dataset} candidate`,
    locate: staged.locate ?? inFolder(staged.directory),
    files: staged.files,
    generatedAt: facts.generatedAt,
    facts,
  };
  // Drift: is the candidate whole, compared with what it would replace? Judged before the pointer
  // moves (promotion.ts, as promote judges a candidate); a failure keeps the current snapshot current.
  let judgement;
  try {
    judgement = await judgeCandidate(
      store,
      { dataset, side: candidateSide, facts, publishedId: null },
      {
        now: options.now,
        limits: options.limits,
        thresholds: options.drift[dataset],
        acceptDrift: options.acceptDrift === null ? null : { reason: options.acceptDrift, by: 'build' },
        allowStale: options.allowStale,
        driftWhenStale: false,
      },
    );
  } catch (error) {
    await store.discard(staged);
    throw error;
  }
  report.freshness = judgement.freshness;
  const { refusal, driftFailing } = judgement;
  if (refusal?.kind === 'stale') {
    return discardAndFail(`stale or invalid, not published: ${refusal.failing.map((r) => r.message).join('; ')}`);
  }
  const until = freshUntil(dataset, facts, options.limits).toISOString();
  report.freshUntil = until;
  report.drift = judgement.drift?.rules ?? [];
  report.driftBaseline = judgement.drift?.baseline ?? null;
  const driftText = driftFailing.map((r) => `${r.rule}: ${r.message}`).join('; ');
  if (refusal?.kind === 'drift' && options.promote) {
    return discardAndFail(
      `drift against current ${refusal.baseline}: ${refusal.failing.map((r) => r.rule).join(', ')} failed; not published, current unchanged. ` +
        'If the change is intended: pdsnap build --accept-drift "<reason>", or --no-promote, pdsnap diff, then pdsnap promote.' +
        newerCurrentAdvice(dataset, refusal.current, facts.generatedAt),
    );
  }
  const acceptedDrift = judgement.acceptance ?? undefined;
  if (options.acceptDrift !== null) {
    report.notes.push({
      source: store.location,
      message: acceptedDrift
        ? `--accept-drift "${options.acceptDrift}": published although ${driftText}`
        : '--accept-drift: no drift check failed, nothing to accept or record',
    });
  }

  let result;
  try {
    result = await store.commit(
      staged,
      {
        generatedAt: facts.generatedAt,
        facts,
        freshUntil: until,
        allowStale: judgement.freshness.some((r) => r.status === 'fail'),
        ...(acceptedDrift ? { acceptedDrift } : {}),
        sources: withFetchProvenance(build.sources, ledger),
      },
      options.now,
      { promote: options.promote },
    );
  } catch (error) {
    // The disk filled (or failed) after the store changed: say exactly what is in place.
    if (error instanceof PublishFailure) {
      return {
        ...fail(error.message),
        published: error.state.bundlePublished,
        madeCurrent: error.state.pointerMoved,
        snapshotId: error.snapshotId,
      };
    }
    throw error;
  }
  if (reused === null) {
    await build.remember?.({
      files: staged.files,
      ...(staged.servingIndex ? { servingIndex: staged.servingIndex } : {}),
      derived,
      content: content.state(),
    });
  }
  const storeNotes = [
    ...(result.repairedPointer ? [`repaired current pointer: ${result.repairedPointerFile} was ${result.repairedPointer}`] : []),
    ...(result.republishedDamaged ? [`republished damaged bundle ${result.snapshotId}: ${result.republishedDamaged}`] : []),
    ...result.removedLeftovers.map((left) => `removed ${left}, left by a process that died`),
  ];
  report.notes.push(...storeNotes.map((message) => ({ source: store.location, message })));
  const kept = result.keptNewerCurrent;
  const candidate = !options.promote && result.snapshotId !== result.previousSnapshotId;
  const candidateReason =
    driftFailing.length > 0
      ? `candidate ${result.snapshotId} published, not made current (--no-promote); promoting it would fail drift: ${driftText}`
      : `candidate ${result.snapshotId} published, not made current (--no-promote)`;
  return {
    ...report,
    outcome: result.published || result.madeCurrent ? 'published' : 'unchanged',
    snapshotId: result.snapshotId,
    published: result.published,
    madeCurrent: result.madeCurrent,
    candidate,
    reason: candidate
      ? `${candidateReason}; see pdsnap diff ${dataset} current ${result.snapshotId}, then pdsnap promote ${dataset} ${result.snapshotId}`
      : kept
        ? `published but not made current: current ${kept.snapshotId} was generated later (${kept.generatedAt}); pdsnap rollback moves current back`
        : null,
  };
}

/** An id as long as the real one will be, for measuring a consensus page before the id exists. */
function placeholderSnapshotId(dataset: DatasetName, now: Date): string {
  return `${dataset}-${now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z')}-${'0'.repeat(12)}`;
}

/** The resource whose emptiness means the snapshot has nothing to serve. */
const PRIMARY_RESOURCE: Record<DatasetName, string> = {
  articles: 'articles',
  calendar: 'events',
  'smart-money': 'investors',
};
