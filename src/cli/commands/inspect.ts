import { Command } from 'commander';
import { withVerbosityOptions } from '../verbosity.js';
import { z } from 'zod';
import { openStore } from '../../publish/open-store.js';
import { BundleIntegrityError, SnapshotNotFoundError } from '../../publish/store-errors.js';
import { DataError, UsageError } from '../errors.js';
import { DEFAULT_STORE, parseOptions, StoreOption, STORE_HELP } from '../options.js';
import { withPathDefaults } from '../path-options.js';
import { formatTable, printJson, printLine } from '../output.js';

const Options = z.object({ store: StoreOption(DEFAULT_STORE), config: z.string().optional(), json: z.boolean().default(false) });

export function inspectCommand(): Command {
  return withVerbosityOptions(new Command('inspect'))
    .description(
      'show a snapshot manifest, record counts and sources (with the address each fetched one came from), after verifying every digest',
    )
    .argument('<snapshotId>')
    .option('--store <dir|s3-url>', STORE_HELP)
    .option('--config <file>', 'config file with paths (default: pdsnap.config.yaml when present, or PDSNAP_CONFIG)')
    .option('--json', 'print JSON to stdout')
    .action(async (snapshotId: string, raw) => {
      const options = parseOptions(Options, await withPathDefaults(raw, ['store']));
      const store = openStore(options.store);
      // Streamed digests: proves every byte is what was published, without parsing a 500 MB resource.
      let manifest, current, acceptedDrift;
      try {
        manifest = await store.verifyBundle(snapshotId);
        current = (await store.pointerStates())[manifest.dataset].snapshotId === snapshotId;
        // Drift accepted by build is in the manifest; by promote, in the store (a manifest never changes).
        acceptedDrift = await store.acceptedDrift(manifest);
      } catch (error) {
        if (error instanceof SnapshotNotFoundError) throw new UsageError(error.message);
        if (error instanceof BundleIntegrityError) throw new DataError(`${error.message}; refusing to use it`);
        throw error;
      } finally {
        await store.close();
      }
      if (options.json) return printJson({ verified: true, current, manifest, acceptedDrift });
      printLine(`snapshot     ${manifest.snapshotId}${current ? '  (current)' : ''}`);
      printLine(`dataset      ${manifest.dataset}`);
      printLine(`generated    ${manifest.generatedAt}`);
      printLine(`fresh until  ${manifest.freshUntil}${manifest.allowStale ? '  (published with --allow-stale)' : ''}`);
      printLine(
        `facts        ${Object.entries(manifest.facts)
          .map(([k, v]) => `${k}=${factText(v)}`)
          .join('  ')}`,
      );
      if (acceptedDrift) {
        printLine(
          `drift        accepted by ${acceptedDrift.by} at ${acceptedDrift.acceptedAt} against ${acceptedDrift.baseline}: "${acceptedDrift.reason}"`,
        );
        for (const check of acceptedDrift.checks) printLine(`               ${check.rule}: ${check.observed}`);
      }
      printLine('');
      printLine(
        formatTable(
          ['file', 'records', 'bytes', 'sha256'],
          manifest.files.map((r) => [r.path, String(r.records), String(r.bytes), r.sha256]),
        ),
      );
      printLine('');
      if (manifest.sources.length > 0) {
        // Where each file came from, when pdsnap fetch brought it (docs/sources-fetch.md, Provenance).
        const fetched = manifest.sources.some((s) => s.url !== undefined);
        printLine(
          formatTable(
            ['source', 'bytes', 'sha256', ...(fetched ? ['fetched from', 'fetched at'] : [])],
            manifest.sources.map((s) => [
              s.resolvedPath ? `${s.path} -> ${s.resolvedPath}` : s.path,
              String(s.bytes),
              s.sha256,
              ...(fetched ? [s.url ?? '-', s.fetchedAt ?? '-'] : []),
            ]),
          ),
        );
        printLine('');
      }
      const fetchedCount = manifest.sources.filter((s) => s.url !== undefined).length;
      printLine(
        `${manifest.sources.length} source file(s)${fetchedCount > 0 ? `, ${fetchedCount} fetched by pdsnap fetch` : ''}; all digests verified`,
      );
    });
}

/** A fact as text: a count per name (the articles of each source feed) as `name:n,name:n`, `none` when empty. */
function factText(value: unknown): string {
  if (value === null || typeof value !== 'object') return String(value);
  const entries = Object.entries(value);
  return entries.length === 0 ? 'none' : entries.map(([name, n]) => `${name}:${String(n)}`).join(',');
}
