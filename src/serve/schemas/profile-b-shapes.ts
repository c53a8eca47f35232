import { z } from 'zod';
import { ArticleSummary, type Article, REGION_LOCALE, type Region } from '../../model/article.js';
import { CalendarEvent, IMPORTANCE_LEVEL } from '../../model/calendar-event.js';
import { IsoDate, NonEmpty } from '../../model/primitives.js';

/**
 * Profile B's records are projections of the published records, defined here once: the zod shapes
 * below give both the response schemas and the types of the projection functions.
 */
export const REGIONS = Object.keys(REGION_LOCALE) as Region[];

export const ProfileBArticleListItem = ArticleSummary.pick({
  slug: true,
  title: true,
  description: true,
  category: true,
  author: true,
  image: true,
})
  .extend({ region: z.enum(['us', 'kr', 'jp']), date: IsoDate })
  .strict();
export type ProfileBArticleListItem = z.infer<typeof ProfileBArticleListItem>;

export const ProfileBArticleDetail = ProfileBArticleListItem.extend({ content: z.string() }).strict();
export type ProfileBArticleDetail = z.infer<typeof ProfileBArticleDetail>;

export const ProfileBCalendarEvent = CalendarEvent.pick({
  eventName: true,
  scheduledAt: true,
  category: true,
  forecastValue: true,
  previousValue: true,
  actualValue: true,
})
  .extend({ country: NonEmpty, importance: z.number().int().min(1).max(3) })
  .strict();
export type ProfileBCalendarEvent = z.infer<typeof ProfileBCalendarEvent>;

function regionOfLocale(locale: string): Region | null {
  return REGIONS.find((region) => REGION_LOCALE[region] === locale) ?? null;
}

/** null for articles no Profile B region serves (zh-CN). */
export function profileBArticle(article: Article): ProfileBArticleDetail | null {
  const region = regionOfLocale(article.locale);
  if (!region) return null;
  return {
    slug: article.slug,
    title: article.title,
    description: article.description,
    category: article.category,
    region,
    // The publication day in UTC, the same day the from/to filters compare against.
    date: article.publishedAt.slice(0, 10),
    author: article.author,
    image: article.image,
    content: article.content,
  };
}

export function profileBCalendarEvent(event: CalendarEvent): ProfileBCalendarEvent {
  return {
    eventName: event.eventName,
    scheduledAt: event.scheduledAt,
    country: event.countryName,
    category: event.category,
    importance: IMPORTANCE_LEVEL[event.importance],
    forecastValue: event.forecastValue,
    previousValue: event.previousValue,
    actualValue: event.actualValue,
  };
}
