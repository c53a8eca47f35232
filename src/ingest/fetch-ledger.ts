import { createReadStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { FETCH_LEDGER_FILE, FetchLedgerEntry } from '../model/fetch-ledger.js';
import type { SourceFile } from '../model/report.js';

/** Every entry of the ledger, by path, in the order they were written (the last is the newest). */
export type FetchLedger = ReadonlyMap<string, readonly FetchLedgerEntry[]>;

/**
 * Reads `<sourcesRoot>/fetch-ledger.ndjson` line by line; no ledger is an empty one. A line that is
 * not a valid entry (the torn last line of a fetch that was killed while appending) is skipped: the
 * ledger only ever adds provenance, so a line lost costs a URL in a manifest, never a wrong one.
 */
export async function readFetchLedger(sourcesRoot: string): Promise<FetchLedger> {
  const ledger = new Map<string, FetchLedgerEntry[]>();
  const input = createReadStream(path.join(sourcesRoot, FETCH_LEDGER_FILE), { encoding: 'utf8' });
  try {
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        continue;
      }
      const entry = FetchLedgerEntry.safeParse(value);
      if (!entry.success) continue;
      const entries = ledger.get(entry.data.path);
      if (entries === undefined) ledger.set(entry.data.path, [entry.data]);
      else entries.push(entry.data);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ledger;
    throw error;
  }
  return ledger;
}

/**
 * The newest entry of `file` whose bytes are the file's own (same digest and size): a file edited
 * or replaced by hand after it was fetched no longer came from that address, and an entry appended
 * for a download that never landed (a crash before the rename) matches nothing.
 */
export function ledgerEntryOf(ledger: FetchLedger, file: { path: string; sha256: string; bytes: number }): FetchLedgerEntry | undefined {
  const entries = ledger.get(file.path) ?? [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (entry.sha256 === file.sha256 && entry.bytes === file.bytes) return entry;
  }
  return undefined;
}

/** Each source file with the address and time it was fetched from, when the ledger vouches for its bytes. */
export function withFetchProvenance(sources: readonly SourceFile[], ledger: FetchLedger): SourceFile[] {
  if (ledger.size === 0) return [...sources];
  return sources.map((source) => {
    const entry = ledgerEntryOf(ledger, source);
    return entry === undefined ? source : { ...source, url: entry.url, fetchedAt: entry.fetchedAt };
  });
}
