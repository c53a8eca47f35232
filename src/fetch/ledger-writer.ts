import { type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import { FETCH_LEDGER_FILE, type FetchLedgerEntry } from '../model/fetch-ledger.js';

/**
 * Appends to `<sources>/fetch-ledger.ndjson`, one whole line per file, before the file is renamed
 * into place: a crash between the two leaves an entry whose digest matches no file, which build
 * ignores, never a file without its entry. Header values never reach it (the entry has no field
 * for them), and addresses carry no credentials (refused in the configuration).
 */
export class LedgerWriter {
  private handle: Promise<FileHandle> | null = null;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly sourcesRoot: string) {}

  append(entry: FetchLedgerEntry): Promise<void> {
    const line = `${JSON.stringify(entry)}\n`;
    const write = this.queue.then(async () => {
      this.handle ??= open(path.join(this.sourcesRoot, FETCH_LEDGER_FILE), 'a');
      await (await this.handle).write(line);
    });
    this.queue = write.catch(() => undefined);
    return write;
  }

  /** Forces the entries to disk and closes the file. */
  async close(): Promise<void> {
    await this.queue;
    if (this.handle === null) return;
    const handle = await this.handle;
    await handle.sync();
    await handle.close();
    this.handle = null;
  }
}
