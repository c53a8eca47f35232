import { JsonTextError, parseJsonText } from '../json-text.js';
import type { LoadedSource } from '../source-files.js';
import type { ArticleDraft, DraftBatch } from './article-draft.js';
import { textOf } from './field-text.js';
import { draftFromFields } from './front-matter-fields.js';
import { renderMarkdown } from './html-content.js';
import { folderLocaleOf } from './locale.js';

/**
 * A JSON article file: one article object or an array of them, with the front matter field names
 * plus the content as `body` (Markdown) or `contentHtml` (HTML, e.g. a CMS export).
 */
export function readJsonArticles(file: Pick<LoadedSource, 'relativePath' | 'content'>): DraftBatch {
  const text = file.content.toString('utf8').replace(/^\uFEFF/, '');
  let parsed: unknown;
  try {
    parsed = parseJsonText(text);
  } catch (error) {
    if (!(error instanceof JsonTextError)) throw error;
    return {
      drafts: [],
      rejections: [
        {
          source: file.relativePath,
          location: error.line === undefined ? 'document' : `line ${error.line}`,
          reason: `invalid JSON: ${error.message}`,
        },
      ],
      notes: [],
    };
  }
  const items = Array.isArray(parsed) ? parsed : [parsed];
  const batch: DraftBatch = { drafts: [], rejections: [], notes: [] };
  for (const [index, item] of items.entries()) {
    const location = `record ${index + 1}`;
    const reject = (reason: string) => batch.rejections.push({ source: file.relativePath, location, reason });
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      reject('an article must be a JSON object');
      continue;
    }
    const fields = item as Record<string, unknown>;
    if (fields.body !== undefined && fields.contentHtml !== undefined) {
      reject('write either body (Markdown) or contentHtml, not both');
      continue;
    }
    const body = fields.body ?? fields.contentHtml;
    if (body !== undefined && typeof body !== 'string') {
      reject(`${fields.body !== undefined ? 'body' : 'contentHtml'} must be a string`);
      continue;
    }
    const html = body === undefined ? '' : fields.body !== undefined ? renderMarkdown(body) : body;
    const title = textOf(fields.title);
    const draft: ArticleDraft = draftFromFields(fields, {
      source: file.relativePath,
      location,
      html,
      slugCandidates: title === undefined ? [] : [title],
      ...folderLocaleOf(file.relativePath),
    });
    batch.drafts.push(draft);
  }
  return batch;
}
