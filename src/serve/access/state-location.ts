/**
 * Where keys and usage live: the embedded default (a JSON keys file and an SQLite usage database,
 * one machine) or a Redis server shared by several `pdsnap serve` instances.
 *
 * A Redis URL may carry a password (`redis://:secret@host:6379/0`). Such a URL belongs in the
 * PDSNAP_STATE environment variable, never on the command line (where `ps` shows it to every user
 * of the machine), and it is printed and logged only through `redactedUrl`.
 */

export const STATE_ENV = 'PDSNAP_STATE';

export type StateLocation = { kind: 'file' } | { kind: 'redis'; url: string };

export class StateLocationError extends Error {
  override readonly name = 'StateLocationError';
}

/**
 * The state a command uses: `--state` when given (`file`, or a redis:// or rediss:// URL without
 * credentials), else PDSNAP_STATE, else the files. Throws StateLocationError naming what is wrong,
 * never repeating a password.
 */
export function resolveStateLocation(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): StateLocation {
  if (flag !== undefined) {
    const location = parseStateLocation(flag, '--state');
    if (location.kind === 'redis' && hasCredentials(location.url)) {
      throw new StateLocationError(
        `--state: a password on the command line is visible to every user of the machine; put the URL in ${STATE_ENV} instead`,
      );
    }
    return location;
  }
  const fromEnv = env[STATE_ENV];
  if (fromEnv === undefined || fromEnv.trim() === '') return { kind: 'file' };
  return parseStateLocation(fromEnv.trim(), STATE_ENV);
}

function parseStateLocation(value: string, label: string): StateLocation {
  if (value === 'file') return { kind: 'file' };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new StateLocationError(`${label}: expected "file" or redis://host:port/db, got something that is not a URL`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new StateLocationError(`${label}: expected "file" or a redis:// or rediss:// URL, got ${url.protocol}//`);
  }
  if (url.hostname === '') throw new StateLocationError(`${label}: ${redactedUrl(value)} names no host`);
  const db = url.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d{1,2}$/.test(db)) {
    throw new StateLocationError(`${label}: ${redactedUrl(value)}: the path must be a database number, e.g. /0`);
  }
  return { kind: 'redis', url: value };
}

/** Query parameters the Redis client reads credentials from (`?password=`), as a URL's user and password. */
const CREDENTIAL_PARAMETERS = ['password', 'username'];

function hasCredentials(value: string): boolean {
  const url = new URL(value);
  return url.password !== '' || url.username !== '' || CREDENTIAL_PARAMETERS.some((name) => url.searchParams.has(name));
}

/** The URL with any user name and password replaced by `***`: the only form that is ever printed. */
export function redactedUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return '(unparseable URL)';
  }
  if (url.username !== '') url.username = '***';
  if (url.password !== '') url.password = '***';
  for (const name of CREDENTIAL_PARAMETERS) if (url.searchParams.has(name)) url.searchParams.set(name, '***');
  return url.toString();
}
