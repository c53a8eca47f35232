import type { FolderStore } from '../src/publish/folder-store.js';

/** What the DuckDB derivation prints: the figures both engines must agree on. */
export interface AnchorCounts {
  investors: number;
  positionsShown: number;
  trades: Record<string, number>;
  /** Consensus rows in rank order: issuer name, holder count, total reported value. */
  consensus: Array<[string, number, number]>;
}

/** Shown at most, so that a broken derivation does not print a million lines. */
const LISTED = 5;

/**
 * Compares pdsnap's published bundle with the DuckDB outputs: consensus row by row (issuer name,
 * holder count, total reported value), trade counts per action, the investor count and the
 * positions shown. Returns the differences; none means the two did the same work.
 */
export async function crossCheck(store: FolderStore, snapshotId: string, anchor: AnchorCounts): Promise<string[]> {
  const bundle = await store.openBundle(snapshotId);
  const problems: string[] = [];
  let investors = 0;
  let positionsShown = 0;
  for await (const record of bundle.records('investors')) {
    investors += 1;
    positionsShown += (record as { positionsShown: number }).positionsShown;
  }
  if (investors !== anchor.investors) problems.push(`investors: pdsnap ${investors}, DuckDB ${anchor.investors}`);
  if (positionsShown !== anchor.positionsShown) problems.push(`positions shown: pdsnap ${positionsShown}, DuckDB ${anchor.positionsShown}`);

  const trades: Record<string, number> = {};
  for await (const record of bundle.records('trades')) {
    const action = (record as { action: string }).action;
    trades[action] = (trades[action] ?? 0) + 1;
  }
  for (const action of new Set([...Object.keys(trades), ...Object.keys(anchor.trades)])) {
    if ((trades[action] ?? 0) !== (anchor.trades[action] ?? 0))
      problems.push(`trades ${action}: pdsnap ${trades[action] ?? 0}, DuckDB ${anchor.trades[action] ?? 0}`);
  }

  const rowProblems: string[] = [];
  let rank = 0;
  for await (const record of bundle.records('consensus')) {
    const row = record as { issuerName: string; holderCount: number; totalReportedValue: number };
    const other = anchor.consensus[rank];
    rank += 1;
    const ours = JSON.stringify([row.issuerName, row.holderCount, row.totalReportedValue]);
    if (other === undefined || ours !== JSON.stringify(other))
      rowProblems.push(`consensus rank ${rank}: pdsnap ${ours}, DuckDB ${JSON.stringify(other ?? null)}`);
  }
  if (rank !== anchor.consensus.length) rowProblems.push(`consensus rows: pdsnap ${rank}, DuckDB ${anchor.consensus.length}`);
  problems.push(...rowProblems.slice(0, LISTED));
  if (rowProblems.length > LISTED) problems.push(`and ${rowProblems.length - LISTED} more consensus differences`);
  return problems;
}
