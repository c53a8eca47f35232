import { CONFIG_ENV, loadConfig, type PathName } from './config.js';

/** The environment variable of each path option (docs/spec.md, Command line). */
const PATH_ENV: Record<PathName, string> = {
  sources: 'PDSNAP_SOURCES',
  store: 'PDSNAP_STORE',
  keys: 'PDSNAP_KEYS',
  usageDb: 'PDSNAP_USAGE_DB',
};

/**
 * Fills the path options a command uses, flag > environment > config file > default: a job sets
 * PDSNAP_STORE once, or names its paths in pdsnap.config.yaml (relative to that file's folder).
 * `config` is taken from PDSNAP_CONFIG when --config is absent, so the limits that build and
 * validate read come from the same file. What is left undefined falls to the option's default.
 */
export async function withPathDefaults<T extends Record<string, unknown>>(raw: T, names: PathName[]): Promise<T> {
  const filled: Record<string, unknown> = { ...raw };
  const fromEnv = process.env[CONFIG_ENV];
  if (filled.config === undefined && fromEnv !== undefined && fromEnv !== '') filled.config = fromEnv;
  const config = await loadConfig(filled.config as string | undefined);
  for (const name of names) {
    if (filled[name] !== undefined) continue;
    const env = process.env[PATH_ENV[name]];
    if (env !== undefined && env !== '') filled[name] = env;
    else if (config.paths[name] !== undefined) filled[name] = config.paths[name];
  }
  return filled as T;
}
