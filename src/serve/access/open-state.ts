import { FileState, type FileStateOptions } from './file-state.js';
import type { RedisState, RedisStateOptions } from './redis-state.js';
import type { StateLocation } from './state-location.js';

export type OpenedState = { kind: 'file'; store: FileState } | { kind: 'redis'; store: RedisState };

/**
 * Opens the state a command was pointed at. The Redis client is loaded only when asked for, so the
 * file default costs nothing of it. Throws KeyFileError (broken keys file) or StateUnavailableError
 * (Redis not reachable within options.connectWaitMs), both with messages fit for the user.
 */
export async function openState(location: StateLocation, files: FileStateOptions, redis: RedisStateOptions = {}): Promise<OpenedState> {
  if (location.kind === 'file') return { kind: 'file', store: FileState.open(files) };
  const { openRedisState } = await import('./redis-state.js');
  return { kind: 'redis', store: await openRedisState(location.url, redis) };
}
