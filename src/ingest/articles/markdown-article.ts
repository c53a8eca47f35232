import path from 'node:path';
import matter from 'gray-matter';
import { parse as parseYaml, YAMLError } from 'yaml';
import type { LoadedSource } from '../source-files.js';
import type { DraftBatch } from './article-draft.js';
import { textOf } from './field-text.js';
import { draftFromFields } from './front-matter-fields.js';
import { renderMarkdown } from './html-content.js';
import { splitDatedFileName } from './slug.js';

const LOCATION = 'front matter';

/** A Markdown article: YAML front matter (parsed by `yaml`, YAML 1.2, so dates stay text) + body. */
export function readMarkdownArticle(file: Pick<LoadedSource, 'relativePath' | 'content'>): DraftBatch {
  const reject = (location: string, reason: string): DraftBatch => ({
    drafts: [],
    rejections: [{ source: file.relativePath, location, reason }],
    notes: [],
  });
  const text = file.content.toString('utf8').replace(/^\uFEFF/, '');
  let parsed: matter.GrayMatterFile<string>;
  try {
    parsed = matter(text, { engines: { yaml: (s: string) => (parseYaml(s) ?? {}) as object } });
  } catch (error) {
    if (error instanceof YAMLError) {
      // gray-matter hands the engine the text right after the opening `---`, newline included,
      // so a line of that text is the same line of the file.
      const line = error.linePos?.[0]?.line;
      const at = line === undefined ? LOCATION : `${LOCATION}, line ${line}`;
      const message = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      return reject(at, `invalid YAML: ${message}`);
    }
    return reject(LOCATION, `unreadable front matter: ${(error as Error).message.split('\n')[0]}`);
  }
  if (!parsed.matter || parsed.matter.trim() === '') {
    return reject(LOCATION, 'missing: a Markdown article starts with a --- YAML front matter block');
  }
  const data: unknown = parsed.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return reject(LOCATION, 'front matter must be a mapping of fields');
  }
  const fields = data as Record<string, unknown>;
  const fromName = splitDatedFileName(path.posix.basename(file.relativePath));
  const title = textOf(fields.title);
  const draft = draftFromFields(fields, {
    source: file.relativePath,
    location: LOCATION,
    html: renderMarkdown(parsed.content),
    slugCandidates: [fromName.stem, ...(title === undefined ? [] : [title])],
    ...(fromName.date === undefined ? {} : { fallbackDate: fromName.date }),
  });
  return { drafts: [draft], rejections: [], notes: [] };
}
