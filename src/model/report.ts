import { z } from 'zod';
import { Instant } from './primitives.js';

/** A source record that was not used, and why. Never dropped silently. */
export const Rejection = z
  .object({
    /** Path relative to the sources root. */
    source: z.string(),
    /** Line, row, record index or element path inside the source. */
    location: z.string(),
    reason: z.string(),
  })
  .strict();
export type Rejection = z.infer<typeof Rejection>;

/** A decision the build made that a reader of the report should see (value units, exclusions). */
export const BuildNote = z
  .object({
    source: z.string(),
    message: z.string(),
    /**
     * Set on a routine decision made the same way for many files (the value unit of a filing by its
     * date): the kind, as a counted noun phrase ("filing(s) with values read as dollars by their filing date"). The readable report counts these per kind on one line, so that the
     * exceptions stay visible; --json lists every note.
     */
    routine: z.string().optional(),
  })
  .strict();
export type BuildNote = z.infer<typeof BuildNote>;

/** Provenance of one source file that went into a snapshot. */
export const SourceFile = z
  .object({
    path: z.string(),
    bytes: z.number().int().min(0),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    /**
     * Where the file really is, when a symlink under the sources root led to it: relative to the
     * sources root when inside it, else absolute. Absent when no symlink was crossed.
     */
    resolvedPath: z.string().optional(),
    /**
     * The address `pdsnap fetch` downloaded the file from, and when, from the fetch ledger of the
     * sources root (docs/sources-fetch.md): set only when the file's bytes are the ones fetched.
     * Absent for files put there by hand, and in bundles built before fetch existed.
     */
    url: z.string().optional(),
    fetchedAt: Instant.optional(),
  })
  .strict();
export type SourceFile = z.infer<typeof SourceFile>;
