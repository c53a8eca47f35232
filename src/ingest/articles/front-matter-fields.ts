import { type ArticleDraft, marksMarketSnapshot } from './article-draft.js';

type DraftBase = Pick<ArticleDraft, 'source' | 'location' | 'html' | 'slugCandidates' | 'fallbackDate' | 'folderLocale'>;

/**
 * Maps the fields an editor writes (Jekyll and Hugo front matter, or the same names in a JSON
 * article) onto a draft. Unknown fields (tags, weight, layout...) are ignored: they are the site's
 * business, not the dataset's.
 */
export function draftFromFields(fields: Record<string, unknown>, base: DraftBase): ArticleDraft {
  const exclusion = marksMarketSnapshot([fields.type]) ? 'provider market snapshot' : fields.draft === true ? 'draft' : undefined;
  return {
    ...base,
    sourceId: fields.source,
    rights: fields.rights,
    attribution: fields.attribution,
    title: fields.title,
    description: fields.description ?? fields.summary,
    date: fields.date ?? fields.publishedAt,
    author: fields.author ?? fields.authors,
    categories: [...categoryList(fields.categories), fields.category],
    locale: fields.locale ?? fields.lang ?? fields.language,
    slug: fields.slug,
    image: fields.image ?? (Array.isArray(fields.images) ? fields.images[0] : undefined),
    ...(exclusion === undefined ? {} : { exclusion }),
  };
}

/** Jekyll allows `categories: markets economy` (space-separated); Hugo writes a list. */
function categoryList(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return value.split(/\s+/).filter((c) => c !== '');
  return [];
}
