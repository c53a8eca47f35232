import { deserialize, serialize } from 'node:v8';
import type { ConsensusHolding } from '../../derive/smart-money/index.js';
import type { ContentCheckState } from '../../model/content-rules.js';
import type { CheckedLines } from '../../model/dataset-build.js';
import { countLineBreaks, NEWLINE } from '../../lib/json-bytes.js';
import { type PackedHoldings, unpackHoldings } from './packed-holdings.js';

/** A batch as derivation hands it over (smart-money-batch.ts's SmartMoneyBatch), its lines' bytes as `P`. */
interface BatchOf<P> {
  lines: Array<Omit<CheckedLines, 'bytes'> & { bytes: P }>;
  content: ContentCheckState;
  investors: number;
  oldestPeriod?: string;
}

/**
 * A batch of investors as the derivation cache keeps it (investor-batch-cache.ts): everything the
 * batch came to but its lines, which stay in the parts the build published. Made where the batch
 * was derived (a worker thread), read back where it is reused (a worker thread too, when there
 * are any), so that it costs the thread that writes the bundle nothing but a write. In V8's
 * serialization format: four times as fast as JSON for the holdings' strings and numbers; a
 * Node.js that cannot read an entry (a later format) derives the batch again.
 */
interface KeptBatch {
  investors: number;
  oldestPeriod?: string;
  content: ContentCheckState;
  /** The batch's chunks of lines as derivation handed them over: replayed in the same order, they write the same bundle. */
  chunks: Array<{ resource: string; records: number; bytes: number; facts?: unknown }>;
  /** What its investors added to consensus (packed-holdings.ts). */
  holdings: PackedHoldings;
}

/** The cache entry of a derived batch. */
export function keptBatchEntry(batch: BatchOf<{ length: number }>, holdings: PackedHoldings): Uint8Array {
  const kept: KeptBatch = {
    investors: batch.investors,
    ...(batch.oldestPeriod === undefined ? {} : { oldestPeriod: batch.oldestPeriod }),
    content: batch.content,
    chunks: batch.lines.map((chunk) => ({
      resource: chunk.resource,
      records: chunk.records,
      bytes: chunk.bytes.length,
      ...(chunk.facts === undefined ? {} : { facts: chunk.facts }),
    })),
    holdings,
  };
  // Bytes of their own (never a slice of Node's pool): they are transferred to the main thread.
  return serialize(kept);
}

/**
 * A batch again from its entry and each resource's lines as read back (from parts checked against
 * their digests): the chunks as they were, and its investors' consensus holdings; null when the
 * entry is not well formed, or the lines are not as many lines and bytes as it says (then the
 * batch is derived instead).
 */
export function reusedBatch(
  entry: Uint8Array,
  lines: ReadonlyMap<string, Uint8Array>,
): { batch: BatchOf<Uint8Array>; holdings: Array<[slug: string, holdings: ConsensusHolding[]]> } | null {
  const kept = parseKept(entry);
  if (kept === null) return null;
  let holdings: Array<[string, ConsensusHolding[]]>;
  try {
    holdings = [...unpackHoldings(kept.holdings)];
  } catch {
    return null;
  }
  const chunks: CheckedLines[] = [];
  const at = new Map<string, number>();
  for (const chunk of kept.chunks) {
    const all = lines.get(chunk.resource);
    const start = at.get(chunk.resource) ?? 0;
    if (all === undefined || start + chunk.bytes > all.length) return null;
    chunks.push({
      resource: chunk.resource,
      records: chunk.records,
      bytes: all.subarray(start, start + chunk.bytes),
      ...(chunk.facts === undefined ? {} : { facts: chunk.facts }),
    });
    at.set(chunk.resource, start + chunk.bytes);
  }
  const records = new Map<string, number>();
  for (const chunk of kept.chunks) records.set(chunk.resource, (records.get(chunk.resource) ?? 0) + chunk.records);
  for (const [resource, all] of lines) {
    if ((at.get(resource) ?? 0) !== all.length || countLineBreaks(all) !== records.get(resource) || all.at(-1) !== NEWLINE) return null;
  }
  return {
    batch: {
      lines: chunks,
      content: kept.content,
      investors: kept.investors,
      ...(kept.oldestPeriod === undefined ? {} : { oldestPeriod: kept.oldestPeriod }),
    },
    holdings,
  };
}

function parseKept(entry: Uint8Array): KeptBatch | null {
  try {
    const kept = deserialize(Buffer.from(entry.buffer, entry.byteOffset, entry.length)) as KeptBatch;
    return Array.isArray(kept?.chunks) && typeof kept.investors === 'number' && kept.content !== undefined ? kept : null;
  } catch {
    return null;
  }
}
