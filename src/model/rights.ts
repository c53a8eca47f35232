import { z } from 'zod';
import { NonEmpty } from './primitives.js';

/** Who holds the rights to a record and what a client may do with it. */
export const Rights = z
  .object({
    license: NonEmpty,
    holder: NonEmpty,
    reuse: z.enum(['none', 'with-attribution', 'free']),
  })
  .strict();
export type Rights = z.infer<typeof Rights>;

/** How a client must credit the source. */
export const Attribution = z
  .object({
    source: NonEmpty,
    url: z.url().optional(),
    text: NonEmpty,
  })
  .strict();
export type Attribution = z.infer<typeof Attribution>;
