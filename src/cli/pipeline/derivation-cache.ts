import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { codeFingerprint } from '../../lib/code-fingerprint.js';
import type { KeyedCache } from '../../lib/keyed-file-cache.js';
import { newestTooOldPeriod } from '../../derive/smart-money/staleness.js';
import { listSourceFiles, sourceProvenance, UnreadableSource } from '../../ingest/source-files.js';
import type { KeptDerivation } from '../../model/dataset-build.js';
import { MANIFEST_FORMAT } from '../../model/manifest.js';
import type { BuildNote, Rejection, SourceFile } from '../../model/report.js';
import { partBoundaries } from '../../publish/part-boundaries.js';

/**
 * The derivation cache of a Smart Money build: what a build derived from its inputs, kept under
 * a key that names everything the records depend on, so that the next build of the same inputs
 * publishes the same files again without reading a row (most days nothing in a quarter changed).
 *
 * The key: the digest of every file ingest may read (a file it then ignores can only cost a miss), the code (lib/code-fingerprint.ts), the bundle format and part
 * boundaries, the options that change the records, and the one fact of `now` derivation depends on, the
 * newest quarter end the quarter-age rule refuses (staleness.ts). A data set read before is kept on
 * its own as well (ingest/filings/form13f-intake-cache.ts), so a day with new EDGAR filings reads
 * only those, then derives again.
 */
const KIND = 'smart-money-derivation';

async function pathExists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** What is kept: the derivation, and what ingest reported of the same inputs. */
interface KeptSmartMoney {
  /** The files ingest read, by their path in the sources: their provenance is taken afresh. */
  sourcePaths: string[];
  rejections: Rejection[];
  notes: BuildNote[];
  derivation: KeptDerivation;
}

export interface SmartMoneyInputs {
  /** Each file under filings/, hashed once: ingest takes its provenance from here too. */
  provenance: Map<string, Promise<SourceFile>>;
  files: SourceFile[];
}

/**
 * Every file ingest may read (filings/edgar/, filings/datasets/, filings/investors.yaml) and its
 * digest; null when one cannot be read (then nothing is cached). What fetch keeps beside them, such
 * as the form indexes of filings/edgar-index/, which change every day, is not an input.
 */
export async function smartMoneyInputs(sourcesDir: string): Promise<SmartMoneyInputs | null> {
  const filings = path.join(sourcesDir, 'filings');
  const files = [
    ...(await listSourceFiles(sourcesDir, path.join(filings, 'edgar'))).files,
    ...(await listSourceFiles(sourcesDir, path.join(filings, 'datasets'))).files,
    ...((await pathExists(path.join(filings, 'investors.yaml'))) ? [path.join(filings, 'investors.yaml')] : []),
  ];
  const provenance = new Map(files.map((file) => [file, sourceProvenance(sourcesDir, file)]));
  try {
    return { provenance, files: await Promise.all(provenance.values()) };
  } catch (error) {
    if (error instanceof UnreadableSource) return null;
    throw error;
  }
}

export interface SmartMoneyKeyParts {
  now: Date;
  maxQuarterAgeDays: number;
  allFilers: boolean;
  allowStale: boolean;
  strict: boolean;
}

export function smartMoneyKey(inputs: SmartMoneyInputs, parts: SmartMoneyKeyParts): string {
  const { minBytes, averageBytes, maxBytes } = partBoundaries();
  const described = JSON.stringify({
    kind: KIND,
    code: codeFingerprint(),
    format: MANIFEST_FORMAT,
    partBoundaries: { minBytes, averageBytes, maxBytes },
    options: { allFilers: parts.allFilers, allowStale: parts.allowStale, strict: parts.strict, maxQuarterAgeDays: parts.maxQuarterAgeDays },
    tooOld: newestTooOldPeriod(parts.now, parts.maxQuarterAgeDays),
    files: inputs.files,
  });
  return createHash('sha256').update(described).digest('hex');
}

export async function keptSmartMoney(cache: KeyedCache, key: string): Promise<KeptSmartMoney | null> {
  const bytes = await cache.get(KIND, key);
  if (bytes === null) return null;
  try {
    return JSON.parse(bytes.toString('utf8')) as KeptSmartMoney;
  } catch {
    return null;
  }
}

export async function keepSmartMoney(cache: KeyedCache, key: string, kept: KeptSmartMoney): Promise<void> {
  await cache.put(KIND, key, Buffer.from(JSON.stringify(kept)));
}
