import { Article, type IngestedArticle, type Locale } from '../../model/article.js';
import type { BuildNote, Rejection } from '../../model/report.js';
import { fieldWithNul, nulProblem } from '../text-fields.js';
import type { ArticleDraft } from './article-draft.js';
import { describeArticle } from './description.js';
import { authorName, textOf } from './field-text.js';
import { sanitizeArticleHtml } from './html-content.js';
import { resolveImage } from './image-path.js';
import { normaliseLocale } from './locale.js';
import { parsePublishedDate } from './published-date.js';
import { resolveRights } from './rights-resolution.js';
import { hashSlug, isValidSlug, slugify } from './slug.js';
import type { RegisteredSource, SourceRegistry } from './source-registry.js';
import { formatZodIssues } from '../../lib/zod-issues.js';

const CATEGORY_MAX = 80;

export interface DraftOutcome {
  article?: IngestedArticle;
  rejection?: Rejection;
  notes: BuildNote[];
  /** Tracking pixels removed from the content, by the host each called ('' when relative); absent when it was never sanitized. */
  trackingPixels?: string[];
}

/**
 * Turns a draft into a published article, or a rejection that lists every problem found (so an
 * editor fixes a file in one pass). Market snapshots (and Hugo drafts) are excluded with a note before anything
 * else is checked: they are not articles, so they are not "bad articles" either.
 */
export function finaliseDraft(draft: ArticleDraft, registry: SourceRegistry): DraftOutcome {
  const where = { source: draft.source, location: draft.location };
  if (draft.exclusion !== undefined) {
    return { notes: [{ source: draft.source, message: `${draft.location}: ${draft.exclusion} excluded` }] };
  }
  const problems: string[] = [];
  const notes: BuildNote[] = [];
  // Everything the source wrote, in the order an editor reads it.
  const nul = fieldWithNul({
    title: draft.title,
    description: draft.description,
    date: draft.date,
    author: draft.author,
    categories: draft.categories,
    locale: draft.locale,
    slug: draft.slug,
    image: draft.image,
    source: draft.sourceId,
    rights: draft.rights,
    attribution: draft.attribution,
    content: draft.html,
    fileName: draft.slugCandidates,
  });
  if (nul !== undefined) return { rejection: { ...where, reason: nulProblem(nul) }, notes };

  const resolved = resolveRights(draft, registry);
  if (!resolved.ok) problems.push(resolved.reason);
  // Looked up on its own so that locale and defaults still apply when only the rights block is bad.
  const registered = draft.feedSource ?? (typeof draft.sourceId === 'string' ? registry.byId.get(draft.sourceId.trim()) : undefined);
  // An unknown source is already reported; the defaults it would have supplied are not missing too.
  const sourceUnknown = registered === undefined && draft.sourceId !== undefined;
  const missing = (field: string) => {
    if (!sourceUnknown) problems.push(`missing ${field}`);
  };

  const title = textOf(draft.title);
  if (title === undefined) problems.push(typeof draft.title === 'string' || draft.title == null ? 'missing title' : 'title must be text');

  problems.push(...(draft.fieldProblems ?? []));
  const dateValue = draft.date ?? draft.fallbackDate;
  const date = parsePublishedDate(dateValue);
  if ('error' in date) problems.push(dateValue === undefined ? 'missing date' : date.error);
  const expiry = draft.expiry === undefined ? undefined : parsePublishedDate(draft.expiry);
  if (expiry !== undefined && 'error' in expiry) problems.push(`expiryDate: ${expiry.error}`);

  const locale = resolveLocale(draft, registered, problems);
  if (locale === undefined && draft.locale === undefined && draft.folderLocale === undefined) missing('locale');

  const author = authorName(draft.author) ?? registered?.defaults?.author;
  if (author === undefined) missing('author');

  const writtenCategory = draft.categories.map(textOf).find((c) => c !== undefined);
  const categoryText = writtenCategory ?? registered?.defaults?.category;
  const category = categoryText === undefined ? undefined : slugify(categoryText, CATEGORY_MAX);
  if (categoryText === undefined) missing('category');
  else if (category === '') problems.push(`category "${categoryText}" has no slug form (write it in Latin letters)`);

  if (draft.slug !== undefined && (typeof draft.slug !== 'string' || !isValidSlug(draft.slug))) {
    problems.push(`invalid slug "${String(draft.slug)}": lowercase letters, digits and single hyphens, at most 200 characters`);
  }
  if (draft.description !== undefined && draft.description !== null && typeof draft.description !== 'string') {
    problems.push('description must be text');
  }

  const sanitized = sanitizeArticleHtml(draft.html, draft.baseUrl);
  const content = sanitized.html;
  const { trackingPixels } = sanitized;
  if (sanitized.empty) {
    // Nothing but a tracking pixel (some feed items), markup or a script: say what was there.
    const removed = trackingPixels.length > 0 ? ` (${trackingPixels.length} tracking pixel(s) removed)` : '';
    problems.push(draft.html.trim() === '' ? 'empty content' : `empty content after sanitising${removed}`);
  }

  if (problems.length > 0 || !resolved.ok || title === undefined || 'error' in date || !locale || !author || !category) {
    return { rejection: { ...where, reason: problems.join('; ') }, notes, trackingPixels };
  }

  const slug =
    typeof draft.slug === 'string'
      ? draft.slug
      : (draft.slugCandidates.map((candidate) => slugify(candidate)).find((s) => s !== '') ?? hashSlug(locale, title, date.instant));

  const image = resolveImage(draft.image);
  if (image.problem !== undefined) notes.push({ source: draft.source, message: `${draft.location}: ${image.problem}` });

  const record = {
    slug,
    title,
    description: describeArticle(
      typeof draft.description === 'string' ? draft.description : undefined,
      draft.descriptionIsHtml === true,
      content,
    ),
    category,
    locale,
    publishedAt: date.instant,
    author,
    image: image.image,
    rights: resolved.rights,
    attribution: resolved.attribution,
    content,
  };
  // Rights and attribution may come from the registry rather than the article: checked here too.
  const nulInRecord = fieldWithNul(record);
  if (nulInRecord !== undefined) return { rejection: { ...where, reason: nulProblem(nulInRecord) }, notes, trackingPixels };
  const checked = Article.safeParse(record);
  if (!checked.success) {
    return { rejection: { ...where, reason: `invalid article: ${formatZodIssues(checked.error)}` }, notes, trackingPixels };
  }
  const feedItem =
    draft.feedSource === undefined ? {} : { feedItem: { sourceId: draft.feedSource.id, id: draft.itemId ?? `${title} ${date.instant}` } };
  const expires = expiry !== undefined && 'instant' in expiry ? { expiresAt: expiry.instant } : {};
  return { article: { record: checked.data, ...where, ...feedItem, ...expires }, notes, trackingPixels };
}

/**
 * The locale of an article: written in its front matter (or JSON record), else named by its folder
 * (`articles/en-US/`), else its registered source's. A written locale replaces the source's, as
 * written rights do (a source's locale is its default); but a folder must agree with what is
 * written, and, when nothing is written, with the source: a contradiction is rejected, naming both.
 */
function resolveLocale(draft: ArticleDraft, registered: RegisteredSource | undefined, problems: string[]): Locale | undefined {
  const folder = draft.folderLocale;
  if (draft.locale !== undefined) {
    const written = typeof draft.locale === 'string' ? normaliseLocale(draft.locale) : undefined;
    if (written === undefined) {
      problems.push(`unsupported locale "${String(draft.locale)}" (en-US, ko-KR, ja-JP or zh-CN)`);
    } else if (folder !== undefined && folder.locale !== written) {
      problems.push(`locale contradiction: ${draft.location} says ${written} but the folder ${folder.folder}/ says ${folder.locale}`);
      return undefined;
    }
    return written;
  }
  if (folder !== undefined) {
    if (registered !== undefined && registered.locale !== folder.locale) {
      problems.push(
        `locale contradiction: the folder ${folder.folder}/ says ${folder.locale} but source "${registered.id}" is registered as ${registered.locale}; write the locale in ${draft.location}`,
      );
      return undefined;
    }
    return folder.locale;
  }
  return registered?.locale;
}
