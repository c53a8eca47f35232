import { z } from 'zod';
import { Instant } from './primitives.js';

/**
 * The fetch ledger: one line of JSON per file `pdsnap fetch` wrote under the sources root, appended
 * before the file is renamed into place (docs/sources-fetch.md, Provenance). `fetch` reads it for
 * the validators of its conditional requests; `build` reads it to name, in a bundle's manifest,
 * the address each source file came from.
 */
export const FETCH_LEDGER_FILE = 'fetch-ledger.ndjson';

export const FetchLedgerEntry = z
  .object({
    /** Relative to the sources root, with forward slashes: the `path` a manifest's sources[] gives. */
    path: z.string().min(1),
    /** The address asked for: the configured one, or the one EDGAR's index names. */
    url: z.string().min(1),
    /** Origin and path (no query) of the address that answered, when a redirect led there. */
    redirectedTo: z.string().optional(),
    fetchedAt: Instant,
    /** The HTTP status of the answer whose body this is. */
    status: z.number().int(),
    etag: z.string().optional(),
    lastModified: z.string().optional(),
    /** Size and digest of the file as written (after content decoding). */
    bytes: z.number().int().min(0),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .strict();
export type FetchLedgerEntry = z.infer<typeof FetchLedgerEntry>;
