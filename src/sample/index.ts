import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeSampleArticles } from './articles.js';
import { writeSampleCalendar } from './calendar.js';
import { writeSampleFilings } from './filings.js';
import { reportQuarters } from '../lib/quarters.js';
import { writeForm13fDataset } from './form13f-dataset.js';

export interface SampleOptions {
  now: Date;
  /** When set, also write two full-size Form 13F data sets with this many filers each. */
  scale?: number;
}

/**
 * Writes a realistic source tree dated relative to `now`: the same `now` always gives the same
 * bytes, so the committed sample in data/sources can be regenerated and compared.
 */
export async function writeSampleSources(outDir: string, options: SampleOptions): Promise<{ form13fRows: number }> {
  await mkdir(outDir, { recursive: true });
  for (const sub of ['articles', 'calendar', 'filings']) await rm(path.join(outDir, sub), { recursive: true, force: true });
  await writeSampleArticles(outDir, options.now);
  await writeSampleCalendar(outDir, options.now);
  await writeSampleFilings(outDir, options.now);
  let form13fRows = 0;
  if (options.scale !== undefined) {
    // The quarters of the EDGAR sample: the two latest whose filing deadline has passed, in UTC.
    const [previous, latest] = reportQuarters(options.now);
    const dir = path.join(outDir, 'filings', 'datasets');
    await mkdir(dir, { recursive: true });
    for (const period of [previous, latest]) {
      const { rows } = await writeForm13fDataset(path.join(dir, `form13f-${period}.zip`), {
        period,
        filers: options.scale,
        seed: 13,
      });
      form13fRows += rows;
    }
  }
  return { form13fRows };
}

/** True when dir holds anything, so `sample` does not overwrite a real source tree by accident. */
export async function isNonEmptyDir(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length > 0;
  } catch {
    return false;
  }
}
