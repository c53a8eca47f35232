import { z } from 'zod';
import { Instant, NonEmpty } from './primitives.js';
import { Attribution } from './rights.js';

export const IMPORTANCE = ['low', 'medium', 'high'] as const;
export const Importance = z.enum(IMPORTANCE);
export type Importance = z.infer<typeof Importance>;

/** Profile B shows importance as 1..3, 3 being high. */
export const IMPORTANCE_LEVEL: Record<Importance, 1 | 2 | 3> = { low: 1, medium: 2, high: 3 };

export const CalendarEvent = z
  .object({
    /** Stable id derived from the event's content, never a provider id. */
    id: z.string().regex(/^evt-[0-9a-f]{16}$/),
    eventName: NonEmpty,
    scheduledAt: Instant,
    /** ISO 3166-1 alpha-2. */
    country: z.string().regex(/^[A-Z]{2}$/),
    countryName: NonEmpty,
    category: NonEmpty,
    importance: Importance,
    forecastValue: z.string(),
    previousValue: z.string(),
    /** "" until released. */
    actualValue: z.string(),
    verifiedAt: Instant,
    license: NonEmpty,
    attribution: Attribution,
  })
  .strict();
export type CalendarEvent = z.infer<typeof CalendarEvent>;
