import { z } from 'zod';

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
  })
  .strict();
export type BuildNote = z.infer<typeof BuildNote>;

/** Provenance of one source file that went into a snapshot. */
export const SourceFile = z
  .object({
    path: z.string(),
    bytes: z.number().int().min(0),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .strict();
export type SourceFile = z.infer<typeof SourceFile>;
