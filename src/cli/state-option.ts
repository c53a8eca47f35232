import { KeyFileError } from '../serve/access/key-record.js';
import { type OpenedState, openState } from '../serve/access/open-state.js';
import type { RedisStateOptions } from '../serve/access/redis-state.js';
import { type StateLocation, StateLocationError, STATE_ENV, resolveStateLocation } from '../serve/access/state-location.js';
import { KeyNotFoundError, StateUnavailableError } from '../serve/access/state-store.js';
import { UsageError } from './errors.js';

export const STATE_OPTION_HELP = `where keys and usage live: "file" (default: --keys and --usage-db) or redis://host:port/db; a URL with a password goes in ${STATE_ENV}, never on the command line`;

/**
 * --state or PDSNAP_STATE, checked: a user's mistake is exit 3 with a message that never repeats a
 * password. With Redis, the file options make no sense and are refused rather than ignored.
 */
export function stateLocationOf(flag: string | undefined, fileOptionsGiven: string[]): StateLocation {
  let location: StateLocation;
  try {
    location = resolveStateLocation(flag);
  } catch (error) {
    if (error instanceof StateLocationError) throw new UsageError(error.message);
    throw error;
  }
  if (location.kind === 'redis' && fileOptionsGiven.length > 0) {
    throw new UsageError(`${fileOptionsGiven.join(' and ')} name files of the file state; keys and usage are in Redis here`);
  }
  return location;
}

/** Opens the state for a command; unreachable Redis or a broken keys file is exit 3. */
export async function openStateForCommand(
  location: StateLocation,
  files: { keysFile: string; usageDbFile: string },
  redis: RedisStateOptions = {},
): Promise<OpenedState> {
  return userErrors(() => openState(location, files, { connectWaitMs: 5000, ...redis }));
}

/** Errors that are the user's to fix (a broken keys file, an unknown id, Redis not reachable) end with exit 3. */
export async function userErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof KeyFileError || error instanceof KeyNotFoundError || error instanceof StateUnavailableError) {
      throw new UsageError(error.message);
    }
    throw error;
  }
}
