import { Command } from 'commander';
import { withPathDefaults } from '../path-options.js';
import { withVerbosityOptions } from '../verbosity.js';
import { z } from 'zod';
import type { DatasetName } from '../../model/dataset.js';
import type { RuleResult } from '../../model/rule-result.js';
import { openStore } from '../../publish/open-store.js';
import { BundleIntegrityError, CurrentMovedError, SnapshotNotFoundError } from '../../publish/store-errors.js';
import { loadConfig } from '../config.js';
import { DataError, ExitCode, ExitWith, UsageError } from '../errors.js';
import { DEFAULT_STORE, datasetArgument, NowOption, parseOptions, StoreOption, STORE_HELP } from '../options.js';
import { printJson, printLine } from '../output.js';
import { sideOf } from '../pipeline/drift.js';
import { type Judgement, judgeCandidate } from '../pipeline/promotion.js';
import { requireStore } from '../required-path.js';

const Options = z.object({
  store: StoreOption(DEFAULT_STORE),
  now: NowOption,
  config: z.string().optional(),
  acceptDrift: z.string().trim().min(1, 'give the reason, e.g. --accept-drift "Q3 filings replace Q2"').optional(),
  json: z.boolean().default(false),
});

/**
 * The manual half of a rebuild: a candidate published with `build --no-promote` becomes current
 * after the same freshness and drift checks a build runs against the current snapshot.
 */
export function promoteCommand(): Command {
  return withVerbosityOptions(new Command('promote'))
    .description('make a candidate snapshot current, after freshness and drift checks against the current one')
    .argument('<dataset>')
    .argument('<snapshotId>')
    .option('--store <dir|s3-url>', STORE_HELP)
    .option('--now <iso>', 'the instant to judge freshness at, recorded as publishedAt of the pointer (default: the clock)')
    .option('--config <file>', 'freshness limits and drift thresholds (default: pdsnap.config.yaml when present)')
    .option('--accept-drift <reason>', 'promote although drift checks fail; the reason and the figures are recorded in the store')
    .option('--json', 'print JSON to stdout')
    .action(async (datasetArg: string, snapshotId: string, raw) => {
      const options = parseOptions(Options, await withPathDefaults(raw, ['store']));
      const dataset = datasetArgument(datasetArg);
      const config = await loadConfig(options.config);
      const store = openStore(options.store);
      try {
        await requireStore(store, options.store);
        let bundle;
        try {
          bundle = await store.openBundle(snapshotId);
        } catch (error) {
          if (error instanceof SnapshotNotFoundError) throw new UsageError(error.message);
          if (error instanceof BundleIntegrityError) throw new DataError(`${error.message}; current not changed`);
          throw error;
        }
        if (bundle.manifest.dataset !== dataset) throw new UsageError(`snapshot ${snapshotId} does not belong to dataset ${dataset}`);
        const judgement = await judgeCandidate(
          store,
          { dataset, side: sideOf(bundle.manifest, bundle.locate), facts: bundle.manifest.facts, publishedId: snapshotId },
          {
            now: options.now,
            limits: config.limits,
            thresholds: config.drift[dataset],
            acceptDrift: options.acceptDrift === undefined ? null : { reason: options.acceptDrift, by: 'promote' },
            allowStale: false,
            driftWhenStale: true,
          },
        );
        const refusal = judgement.refusal === null ? null : refusalText(dataset, snapshotId, bundle.manifest.generatedAt, judgement);
        let previous: string | null = judgement.expectedCurrent;
        if (refusal === null) {
          try {
            previous = (await store.promote(dataset, snapshotId, options.now, judgement.expectedCurrent, judgement.acceptance))
              .previousSnapshotId;
          } catch (error) {
            if (error instanceof CurrentMovedError) throw new DataError(error.message);
            if (error instanceof BundleIntegrityError) throw new DataError(`${error.message}; current not changed`);
            throw error;
          }
        }
        const result = {
          dataset,
          snapshotId,
          promoted: refusal === null,
          previousSnapshotId: previous,
          reason: refusal,
          acceptedDrift: judgement.acceptance,
          freshness: judgement.freshness,
          drift: judgement.drift?.rules ?? [],
        };
        if (options.json) printJson(result);
        else printPromotion(result);
        if (refusal !== null) throw new ExitWith(ExitCode.fail);
      } finally {
        await store.close();
      }
    });
}

/** Why promote refused, with what to do instead. */
function refusalText(dataset: DatasetName, snapshotId: string, generatedAt: string, judgement: Judgement): string {
  const refusal = judgement.refusal!;
  switch (refusal.kind) {
    case 'older-than-current':
      // Going back is rollback's job: a mistyped or stale candidate id cannot quietly turn the clock back on what is served.
      return `generated ${generatedAt}, before current ${refusal.current.snapshotId} (${refusal.current.generatedAt}): promote never moves current back; pdsnap rollback ${dataset} ${snapshotId} does`;
    case 'stale':
      return `stale or invalid: ${refusal.failing.map((r) => r.message).join('; ')}`;
    case 'drift':
      return `drift against current ${refusal.baseline}: ${refusal.failing.map((r) => r.rule).join(', ')} failed; pdsnap promote --accept-drift "<reason>" promotes anyway`;
  }
}

function printPromotion(result: {
  dataset: string;
  snapshotId: string;
  promoted: boolean;
  previousSnapshotId: string | null;
  reason: string | null;
  drift: RuleResult[];
}): void {
  for (const r of result.drift)
    if (r.status !== 'pass' || r.rule === 'drift.baseline') printLine(`  ${r.status.toUpperCase()}  ${r.rule}: ${r.message}`);
  printLine(
    result.promoted
      ? `${result.dataset}: current is now ${result.snapshotId} (was ${result.previousSnapshotId ?? 'none'})`
      : `${result.dataset}: NOT promoted, current unchanged (${result.previousSnapshotId ?? 'none'}): ${result.reason}`,
  );
}
