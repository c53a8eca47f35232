import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { parseJsonText } from '../ingest/json-text.js';
import { parseYamlText } from '../ingest/yaml-text.js';
import { applyDriftOverrides, type DriftThresholds } from '../validate/drift.js';
import { applyLimitOverrides, type FreshnessLimits, PdsnapConfig } from '../validate/limits.js';
import { UsageError } from './errors.js';
import { isBucketLocation } from '../publish/s3-location.js';
import { formatZodIssues } from '../lib/zod-issues.js';
import { applyFetchDefaults, FetchConfigSection, type FetchSettings } from './fetch-config.js';

const DEFAULT_CONFIG_FILE = 'pdsnap.config.yaml';
/** Names the config file when --config is not given (docs/spec.md, Command line). */
export const CONFIG_ENV = 'PDSNAP_CONFIG';

/** The paths a config file may set; relative ones are read from the config file's folder. */
const ConfigPaths = z
  .object({
    sources: z.string().min(1).optional(),
    store: z.string().min(1).optional(),
    keys: z.string().min(1).optional(),
    usageDb: z.string().min(1).optional(),
  })
  .strict();
export type PathName = keyof z.infer<typeof ConfigPaths>;

const ConfigFile = PdsnapConfig.extend({ paths: ConfigPaths.optional(), fetch: FetchConfigSection.optional() }).strict();

export interface LoadedConfig {
  /** Absolute path of the file read; null when none was given and the default file is absent. */
  path: string | null;
  /** The service defaults with the file's overrides applied. */
  limits: FreshnessLimits;
  /** The drift thresholds: defaults with the file's `drift:` overrides. */
  drift: DriftThresholds;
  /** Paths the file sets, absolute (resolved against the file's folder). */
  paths: Partial<Record<PathName, string>>;
  /** `fetch:`: what pdsnap fetch asks for beyond the sources' own addresses, and its limits. */
  fetch: FetchSettings;
}

/**
 * Reads `--config FILE`, or `pdsnap.config.yaml` in the working directory when it exists. YAML or
 * JSON (by extension; YAML otherwise). A file that was named but cannot be read, does not parse, or
 * holds an unknown key or a bad value is the user's mistake: UsageError, exit 3. It is never
 * skipped, because silently falling back to other limits is what a gate must not do.
 */
export async function loadConfig(file?: string, cwd: string = process.cwd()): Promise<LoadedConfig> {
  const explicit = file !== undefined;
  const full = path.resolve(cwd, file ?? DEFAULT_CONFIG_FILE);
  // Named as the user wrote it; the default file by its name.
  const shown = file ?? DEFAULT_CONFIG_FILE;
  let text: string;
  try {
    text = await readFile(full, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!explicit && code === 'ENOENT')
      return {
        path: null,
        limits: applyLimitOverrides(undefined),
        drift: applyDriftOverrides(undefined),
        paths: {},
        fetch: applyFetchDefaults(undefined),
      };
    if (code === 'ENOENT') throw new UsageError(`config ${shown} does not exist`);
    throw new UsageError(`config ${shown} cannot be read: ${code ?? (error as Error).message}`);
  }
  let raw: unknown;
  try {
    // The one YAML and JSON readers of pdsnap (unique keys, alias and depth limits).
    raw = full.endsWith('.json') ? parseJsonText(text) : parseYamlText(text);
  } catch (error) {
    // Where, and what is written there: "Map keys must be unique" alone names no key.
    const line = (error as { line?: number }).line;
    const written = line === undefined ? undefined : lineOf(text, line);
    const where = line === undefined ? '' : ` at line ${line}${written ? ` (${JSON.stringify(written)})` : ''}`;
    throw new UsageError(`config ${shown} does not parse${where}: ${(error as Error).message.split('\n')[0]}`);
  }
  // An empty file parses to null: no overrides.
  const parsed = ConfigFile.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new UsageError(`config ${shown} is invalid at ${formatZodIssues(parsed.error, undefined, '(top level)')}`);
  }
  const folder = path.dirname(full);
  // A bucket (s3://...) is a location, not a path: it is kept as written.
  const paths = Object.fromEntries(
    Object.entries(parsed.data.paths ?? {}).map(([name, value]) => [name, isBucketLocation(value) ? value : path.resolve(folder, value)]),
  );
  return {
    path: full,
    limits: applyLimitOverrides(parsed.data.freshness),
    drift: applyDriftOverrides(parsed.data.drift),
    paths,
    fetch: applyFetchDefaults(parsed.data.fetch),
  };
}

/** The text of a 1-based line, trimmed and shortened for a message. */
function lineOf(text: string, line: number): string | undefined {
  return text
    .split(/\r\n?|\n/)
    [line - 1]?.trim()
    .slice(0, 80);
}
