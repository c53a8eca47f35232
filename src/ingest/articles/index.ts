import path from 'node:path';
import type { IngestedArticle } from '../../model/article.js';
import type { IngestResult } from '../../model/dataset-build.js';
import { listFiles, loadSource, relativeSourcePath } from '../source-files.js';
import type { DraftBatch } from './article-draft.js';
import { readFeed } from './feed.js';
import { finaliseDraft } from './finalise-article.js';
import { readJsonArticles } from './json-articles.js';
import { readMarkdownArticle } from './markdown-article.js';
import { EMPTY_REGISTRY, parseSourceRegistry, REGISTRY_FILE, type RegisteredSource, type SourceRegistry } from './source-registry.js';

export const ARTICLES_FOLDER = 'articles';

const MARKDOWN = /\.(md|markdown)$/i;
const JSON_FILE = /\.json$/i;
const FEED_FILE = /\.(xml|rss|atom)$/i;
// Images and other assets may sit beside the articles that use them.
const ASSET = /\.(png|jpe?g|gif|webp|avif|svg)$/i;

/**
 * Reads `<sourcesRoot>/articles/`: the source registry, Markdown and JSON articles, and the feeds
 * the registry declares. A missing folder is an empty dataset, not an error. Every file read is
 * listed in `sources`; every article that cannot be published is a rejection, and the rest goes on.
 */
export async function ingestArticles(sourcesRoot: string): Promise<IngestResult<IngestedArticle>> {
  const folder = path.join(sourcesRoot, ARTICLES_FOLDER);
  const result: IngestResult<IngestedArticle> = { records: [], rejections: [], notes: [], sources: [] };
  const files = await listFiles(folder);
  if (files.length === 0) return result;

  const registryPath = path.join(folder, REGISTRY_FILE);
  let registry: SourceRegistry = EMPTY_REGISTRY;
  if (files.includes(registryPath)) {
    const loaded = await loadSource(sourcesRoot, registryPath);
    result.sources.push(loaded.provenance);
    const parsed = parseSourceRegistry(loaded.content.toString('utf8'), loaded.relativePath);
    registry = parsed.registry;
    result.rejections.push(...parsed.rejections);
  }

  const feeds = new Map<string, RegisteredSource>();
  for (const entry of registry.byId.values()) {
    if (entry.feed === undefined) continue;
    const feedPath = path.join(folder, entry.feed.path);
    if (!files.includes(feedPath)) {
      result.rejections.push({
        source: relativeSourcePath(sourcesRoot, registryPath),
        location: `source ${entry.id}`,
        reason: `feed file ${relativeSourcePath(sourcesRoot, feedPath)} not found`,
      });
    } else if (feeds.has(feedPath)) {
      result.rejections.push({
        source: relativeSourcePath(sourcesRoot, registryPath),
        location: `source ${entry.id}`,
        reason: `feed file ${entry.feed.path} is already declared by source ${feeds.get(feedPath)!.id}`,
      });
    } else {
      feeds.set(feedPath, entry);
    }
  }

  for (const file of files) {
    if (file === registryPath) continue;
    const relative = relativeSourcePath(sourcesRoot, file);
    const feedSource = feeds.get(file);
    const kind = feedSource ? 'feed' : MARKDOWN.test(file) ? 'markdown' : JSON_FILE.test(file) ? 'json' : FEED_FILE.test(file) ? 'undeclared-feed' : undefined;
    if (kind === undefined) {
      if (!ASSET.test(file)) result.notes.push({ source: relative, message: 'ignored: not an article, feed or image file' });
      continue;
    }
    const loaded = await loadSource(sourcesRoot, file);
    result.sources.push(loaded.provenance);
    let batch: DraftBatch;
    if (feedSource) batch = readFeed(loaded, feedSource);
    else if (kind === 'markdown') batch = readMarkdownArticle(loaded);
    else if (kind === 'json') batch = readJsonArticles(loaded);
    else {
      batch = {
        drafts: [],
        rejections: [{ source: relative, location: 'document', reason: `feed not declared in articles/${REGISTRY_FILE}: its rights cannot be resolved` }],
        notes: [],
      };
    }
    const rejections = [...batch.rejections];
    result.notes.push(...batch.notes);
    for (const draft of batch.drafts) {
      const outcome = finaliseDraft(draft, registry);
      if (outcome.article) result.records.push(outcome.article);
      if (outcome.rejection) rejections.push(outcome.rejection);
      result.notes.push(...outcome.notes);
    }
    // A file's rejections in document order (record 2 before record 10), however they were found.
    result.rejections.push(...rejections.sort((a, b) => locationOrder(a.location) - locationOrder(b.location)));
  }
  return result;
}

function locationOrder(location: string): number {
  const index = /\d+/.exec(location);
  return index ? Number(index[0]) : 0;
}
