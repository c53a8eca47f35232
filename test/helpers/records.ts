import type { Article } from '../../src/model/article.js';
import type { CalendarEvent } from '../../src/model/calendar-event.js';

/** Literal, schema-valid records for tests of the store and its readers. */
export function article(slug: string, publishedAt = '2026-11-21T09:00:00.000Z'): Article {
  return {
    slug,
    title: `Title of ${slug}`,
    description: 'A short description.',
    category: 'markets',
    locale: 'en-US',
    publishedAt,
    author: 'Jane Doe',
    image: '',
    rights: { license: 'Editorial license 2026', holder: 'Example Media', reuse: 'with-attribution' },
    attribution: { source: 'Example Media', text: 'Reprinted with permission of Example Media' },
    content: '<p>Body</p>',
  };
}

export function calendarEvent(id: string, scheduledAt: string): CalendarEvent {
  return {
    id,
    eventName: 'CPI m/m',
    scheduledAt,
    country: 'US',
    countryName: 'United States',
    category: 'inflation',
    importance: 'high',
    forecastValue: '0.3%',
    previousValue: '0.2%',
    actualValue: '',
    verifiedAt: '2026-11-20T00:00:00.000Z',
    license: 'CC-BY-4.0',
    attribution: { source: 'Example Calendar Desk', text: 'Curated by Example Calendar Desk' },
  };
}
