import { createHash } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import { codeFingerprint } from '../../lib/code-fingerprint.js';
import type { KeyedCache } from '../../lib/keyed-file-cache.js';
import type { SourceFile } from '../../model/report.js';
import type { IntakeOptions, IntakeTransfer } from './filing-intake.js';
import type { Form13fLocation } from './form13f-location.js';

/**
 * What one Form 13F data set was read into (an intake's transfer: its filings, row columns,
 * rejections and notes), kept by the derivation cache under the digest of the data set's files, the
 * options that change the reading, and the code. A quarter's data set does not change once the SEC
 * has published it: a daily build reads it once, then takes it from here (a V8 serialization of the
 * transfer, its columns included, about the size of the rows it holds).
 */
const KIND = 'form13f-intake';

export function intakeKey(dataset: Form13fLocation, files: readonly SourceFile[], options: IntakeOptions): string {
  const described = JSON.stringify({ code: codeFingerprint(), source: dataset.source, strictTotals: options.strictTotals, files });
  return createHash('sha256').update(described).digest('hex');
}

/** The transfer an earlier build kept under `key`, or null. */
export async function cachedIntake(cache: KeyedCache, key: string): Promise<IntakeTransfer | null> {
  const bytes = await cache.get(KIND, key);
  if (bytes === null) return null;
  try {
    return deserialize(bytes) as IntakeTransfer;
  } catch {
    // Intact bytes (the cache checked their digest) that this code cannot read: a miss.
    return null;
  }
}

export async function cacheIntake(cache: KeyedCache, key: string, transfer: IntakeTransfer): Promise<void> {
  await cache.put(KIND, key, serialize(transfer));
}
