import { KeyStore } from './key-store.js';
import type { StateStore } from './state-store.js';
import { type UsageWaits, UsageStore } from './usage-store.js';

export interface FileStateOptions {
  keysFile: string;
  usageDbFile: string;
  /** See KeyStore: how old the key cache may get without a change notification; 0 = every lookup. */
  keysMaxAgeMs?: number;
  onKeysReloadError?: (error: Error) => void;
  /** How long a usage write waits for a lock, and pauses after a failure (UsageStore.open); a command's defaults when absent. */
  usageWaits?: UsageWaits;
}

/** The embedded default: keys in a JSON file, usage in SQLite. One machine (processes on it share both). */
export class FileState implements StateStore {
  readonly description = 'file';

  private constructor(
    readonly keys: KeyStore,
    readonly usage: UsageStore,
  ) {}

  /** Throws KeyFileError on an unusable keys file, so a server refuses to start on it. */
  static open(options: FileStateOptions): FileState {
    const keys = new KeyStore(options.keysFile, options.onKeysReloadError, options.keysMaxAgeMs ?? 0);
    try {
      return new FileState(keys, UsageStore.open(options.usageDbFile, options.usageWaits));
    } catch (error) {
      keys.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    this.keys.close();
    this.usage.close();
  }
}
