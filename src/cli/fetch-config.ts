import { z } from 'zod';
import { parseByteSize } from '../lib/byte-size.js';
import { parseDuration } from '../lib/duration.js';
import { DEFAULT_CAPS, type DownloadCaps } from '../fetch/atomic-download.js';
import type { HttpTimeouts } from '../fetch/http-client.js';
import { DEFAULT_RETRIES } from '../fetch/retry-policy.js';

/** What `fetch:` in pdsnap.config.yaml sets (docs/sources-fetch.md, Configuration), with its defaults applied. */
export interface FetchSettings {
  /** Names of SEC Form 13F data sets to keep in filings/datasets/. */
  form13fDatasets: string[];
  caps: DownloadCaps;
  timeouts: HttpTimeouts;
  retries: number;
}

export const DEFAULT_TIMEOUTS: HttpTimeouts = { connectMs: 10_000, idleMs: 30_000, totalMs: 30 * 60_000 };

const Duration = z.string().transform((value, ctx) => {
  try {
    const ms = parseDuration(value);
    if (ms > 0) return ms;
    ctx.addIssue({ code: 'custom', message: 'must be longer than 0s' });
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
  return z.NEVER;
});

const Size = z.union([z.string(), z.number()]).transform((value, ctx) => {
  try {
    const bytes = parseByteSize(value);
    if (bytes > 0) return bytes;
    ctx.addIssue({ code: 'custom', message: 'must be more than 0 bytes' });
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
  return z.NEVER;
});

/** A data set's file name as the SEC publishes it: `2024q1_form13f.zip`, `01sep2026-30nov2026_form13f.zip`. */
const DatasetName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*\.zip$/, 'must be the file name of a data set ZIP, like 2024q1_form13f.zip');

export const FetchConfigSection = z
  .object({
    form13fDatasets: z.array(DatasetName).optional(),
    maxResponseSize: Size.optional(),
    maxDecodedSize: Size.optional(),
    timeouts: z.object({ connect: Duration.optional(), idle: Duration.optional(), total: Duration.optional() }).strict().optional(),
    retries: z.number().int().min(0).max(10).optional(),
  })
  .strict();
export type FetchConfigSection = z.infer<typeof FetchConfigSection>;

export function applyFetchDefaults(section: FetchConfigSection | undefined): FetchSettings {
  return {
    form13fDatasets: [...new Set(section?.form13fDatasets ?? [])],
    caps: {
      maxResponseBytes: section?.maxResponseSize ?? DEFAULT_CAPS.maxResponseBytes,
      maxDecodedBytes: section?.maxDecodedSize ?? DEFAULT_CAPS.maxDecodedBytes,
    },
    timeouts: {
      connectMs: section?.timeouts?.connect ?? DEFAULT_TIMEOUTS.connectMs,
      idleMs: section?.timeouts?.idle ?? DEFAULT_TIMEOUTS.idleMs,
      totalMs: section?.timeouts?.total ?? DEFAULT_TIMEOUTS.totalMs,
    },
    retries: section?.retries ?? DEFAULT_RETRIES,
  };
}
