import { type ArticleDraft, marksMarketSnapshot } from './article-draft.js';

type DraftBase = Pick<ArticleDraft, 'source' | 'location' | 'html' | 'slugCandidates' | 'fallbackDate' | 'folderLocale'>;

/**
 * Maps the fields an editor writes (Jekyll and Hugo front matter, or the same names in a JSON
 * article) onto a draft. Unknown fields (tags, weight, layout...) are ignored: they are the site's
 * business, not the dataset's.
 */
export function draftFromFields(fields: Record<string, unknown>, base: DraftBase): ArticleDraft {
  const fieldProblems: string[] = [];
  // Only a YAML boolean decides: `draft: yes` is a string in YAML 1.2, and guessing what it meant
  // could publish an embargoed article, so it is refused, saying why.
  const flag = (name: 'draft' | 'published'): boolean | undefined => {
    const value = fields[name];
    if (value === undefined || value === null || typeof value === 'boolean') return value ?? undefined;
    fieldProblems.push(`${name} must be true or false, not ${JSON.stringify(value)}`);
    return undefined;
  };
  const draft = flag('draft');
  const published = flag('published');
  const exclusion = marksMarketSnapshot([fields.type])
    ? 'provider market snapshot'
    : draft === true
      ? 'draft'
      : published === false
        ? 'unpublished article (published: false)'
        : undefined;
  const expiry = fields.expiryDate ?? fields.expirydate;
  return {
    ...base,
    sourceId: fields.source,
    rights: fields.rights,
    attribution: fields.attribution,
    title: fields.title,
    description: fields.description ?? fields.summary,
    // Hugo's publishDate is when the article goes out: until then it is not due (derive/articles.ts).
    date: fields.publishDate ?? fields.publishdate ?? fields.date ?? fields.publishedAt,
    author: fields.author ?? fields.authors,
    categories: [...categoryList(fields.categories), fields.category],
    locale: fields.locale ?? fields.lang ?? fields.language,
    slug: fields.slug,
    image: fields.image ?? (Array.isArray(fields.images) ? fields.images[0] : undefined),
    ...(exclusion === undefined ? {} : { exclusion }),
    ...(expiry === undefined ? {} : { expiry }),
    ...(fieldProblems.length === 0 ? {} : { fieldProblems }),
  };
}

/** Jekyll allows `categories: markets economy` (space-separated); Hugo writes a list. */
function categoryList(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return value.split(/\s+/).filter((c) => c !== '');
  return [];
}
