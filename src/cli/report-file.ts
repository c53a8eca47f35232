import path from 'node:path';
import { replaceFileAtomically } from '../lib/atomic-file.js';
import { UsageError } from './errors.js';

/**
 * `--output FILE`: the JSON report, written whole or not at all (temp file, fsync, rename), so a CI
 * step never reads half a report. A folder that is missing or not writable is the user's to fix.
 */
export async function writeReportFile(given: string, report: unknown): Promise<void> {
  try {
    await replaceFileAtomically(path.resolve(given), `${JSON.stringify(report, null, 2)}\n`);
  } catch (error) {
    throw new UsageError(`--output ${given} cannot be written: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
