import path from 'node:path';
import type { LoadedSource } from '../source-files.js';
import { LineCounter } from '../line-index.js';
import { nulProblem } from '../text-fields.js';
import { parseYamlText, YamlTextError } from '../yaml-text.js';
import type { DraftBatch } from './article-draft.js';
import { textOf } from './field-text.js';
import { draftFromFields } from './front-matter-fields.js';
import { splitFrontMatter } from './front-matter.js';
import { renderMarkdown } from './html-content.js';
import { folderLocaleOf } from './locale.js';
import { splitDatedFileName } from './slug.js';

const LOCATION = 'front matter';

/** A Markdown article: YAML front matter (YAML 1.2 only, so dates stay text and nothing is evaluated) + body. */
export function readMarkdownArticle(file: Pick<LoadedSource, 'relativePath' | 'content'>): DraftBatch {
  const reject = (location: string, reason: string): DraftBatch => ({
    drafts: [],
    rejections: [{ source: file.relativePath, location, reason }],
    notes: [],
  });
  const text = file.content.toString('utf8');
  // Checked on the raw text: Markdown rendering would turn a NUL into U+FFFD without a word.
  const nul = text.indexOf('\u0000');
  if (nul !== -1) return reject(`line ${new LineCounter(text).lineAt(nul)}`, nulProblem('the article'));
  const split = splitFrontMatter(text);
  if (split.kind === 'refused') {
    return reject(split.line === undefined ? LOCATION : `${LOCATION}, line ${split.line}`, split.reason);
  }
  if (split.yaml.trim() === '') {
    return reject(LOCATION, 'missing: a Markdown article starts with a --- YAML front matter block');
  }
  let data: unknown;
  try {
    data = parseYamlText(split.yaml);
  } catch (error) {
    if (error instanceof YamlTextError) {
      return reject(error.line === undefined ? LOCATION : `${LOCATION}, line ${error.line}`, `invalid YAML: ${error.message}`);
    }
    throw error;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return reject(LOCATION, 'front matter must be a mapping of fields');
  }
  const fields = data as Record<string, unknown>;
  const fromName = splitDatedFileName(path.posix.basename(file.relativePath));
  const title = textOf(fields.title);
  const draft = draftFromFields(fields, {
    source: file.relativePath,
    location: LOCATION,
    html: renderMarkdown(split.body),
    slugCandidates: [fromName.stem, ...(title === undefined ? [] : [title])],
    ...(fromName.date === undefined ? {} : { fallbackDate: fromName.date }),
    ...folderLocaleOf(file.relativePath),
  });
  return { drafts: [draft], rejections: [], notes: [] };
}
