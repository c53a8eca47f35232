import { Command } from 'commander';
import { withPathDefaults } from '../path-options.js';
import { withVerbosityOptions } from '../verbosity.js';
import { z } from 'zod';
import type { RuleResult } from '../../model/rule-result.js';
import type { DriftAcceptance } from '../../model/manifest.js';
import { FolderStore } from '../../publish/folder-store.js';
import { BundleIntegrityError, CurrentMovedError, InvalidPointerError, SnapshotNotFoundError } from '../../publish/store-errors.js';
import { evaluateFreshness } from '../../validate/freshness.js';
import { loadConfig } from '../config.js';
import { DataError, ExitCode, ExitWith, UsageError } from '../errors.js';
import { DEFAULT_STORE, datasetArgument, NowOption, parseOptions, FolderStoreOption } from '../options.js';
import { printJson, printLine } from '../output.js';
import { checkDrift, currentBaseline, sideOf } from '../pipeline/drift.js';
import { requireStore } from '../required-path.js';

const Options = z.object({
  store: FolderStoreOption(DEFAULT_STORE),
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
    .option('--store <dir>', `bundle store (default ${DEFAULT_STORE})`)
    .option('--now <iso>', 'the instant to judge freshness at, recorded as publishedAt of the pointer (default: the clock)')
    .option('--config <file>', 'freshness limits and drift thresholds (default: pdsnap.config.yaml when present)')
    .option('--accept-drift <reason>', 'promote although drift checks fail; the reason and the figures are recorded in the store')
    .option('--json', 'print JSON to stdout')
    .action(async (datasetArg: string, snapshotId: string, raw) => {
      const options = parseOptions(Options, await withPathDefaults(raw, ['store']));
      const dataset = datasetArgument(datasetArg);
      const config = await loadConfig(options.config);
      const store = new FolderStore(options.store);
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

      let expectedCurrent: string | null;
      try {
        expectedCurrent = (await store.currentPointer(dataset))?.snapshotId ?? null;
      } catch (error) {
        if (!(error instanceof InvalidPointerError)) throw error;
        expectedCurrent = null;
      }
      const freshness = evaluateFreshness(dataset, bundle.manifest.facts, options.now, { limits: config.limits, warnWithinMs: 0 });
      const baseline =
        expectedCurrent === snapshotId ? { side: null, note: 'it is already current' } : await currentBaseline(store, dataset, snapshotId);
      // The current snapshot's generation, from the baseline drift opened anyway (null when it is a stand-in
      // or unreadable: a damaged current is what promote repairs).
      const currentGeneratedAt =
        baseline.standIn === undefined && baseline.side?.label === expectedCurrent ? baseline.side.generatedAt : null;
      const drift = (
        await checkDrift(
          dataset,
          baseline.side,
          sideOf(bundle.manifest, bundle.directory),
          config.drift[dataset],
          baseline.note,
          baseline.standIn,
        )
      ).rules;
      const staleRules = freshness.filter((r) => r.status === 'fail');
      const driftFailing = drift.filter((r) => r.status === 'fail');
      // Going back is rollback's job: promote never makes current older, so a mistyped or stale
      // candidate id cannot quietly turn the clock back on what is served.
      const refusal =
        currentGeneratedAt !== null && Date.parse(bundle.manifest.generatedAt) < Date.parse(currentGeneratedAt)
          ? `generated ${bundle.manifest.generatedAt}, before current ${expectedCurrent} (${currentGeneratedAt}): promote never moves current back; pdsnap rollback ${dataset} ${snapshotId} does`
          : staleRules.length > 0
            ? `stale or invalid: ${staleRules.map((r) => r.message).join('; ')}`
            : driftFailing.length > 0 && options.acceptDrift === undefined
              ? `drift against current ${baseline.side?.label}: ${driftFailing.map((r) => r.rule).join(', ')} failed; pdsnap promote --accept-drift "<reason>" promotes anyway`
              : null;

      let acceptance: DriftAcceptance | null = null;
      if (refusal === null && driftFailing.length > 0 && options.acceptDrift !== undefined) {
        acceptance = {
          reason: options.acceptDrift,
          by: 'promote',
          acceptedAt: options.now.toISOString(),
          baseline: baseline.side!.label,
          checks: drift.filter((r) => r.status !== 'pass'),
        };
      }
      let previous: string | null = expectedCurrent;
      if (refusal === null) {
        try {
          previous = (await store.promote(dataset, snapshotId, options.now, expectedCurrent, acceptance)).previousSnapshotId;
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
        acceptedDrift: acceptance,
        freshness,
        drift,
      };
      if (options.json) printJson(result);
      else printPromotion(result);
      if (refusal !== null) throw new ExitWith(ExitCode.fail);
    });
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
