import path from 'node:path';
import type { IngestedArticle } from '../../model/article.js';
import type { IngestResult } from '../../model/dataset-build.js';
import { listSourceFiles, loadSource, relativeSourcePath, UnreadableSource, type LoadedSource } from '../source-files.js';
import { decodeSourceText } from '../source-text.js';
import type { DraftBatch } from './article-draft.js';
import { readFeed } from './feed.js';
import { isJsonFeed } from './feed-format.js';
import { finaliseDraft } from './finalise-article.js';
import { readJsonArticles } from './json-articles.js';
import { readMarkdownArticle } from './markdown-article.js';
import { trackingPixelNote } from './tracking-pixels.js';
import { EMPTY_REGISTRY, parseSourceRegistry, REGISTRY_FILE, type RegisteredSource, type SourceRegistry } from './source-registry.js';

const ARTICLES_FOLDER = 'articles';

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
  const listing = await listSourceFiles(sourcesRoot, folder);
  result.notes.push(...listing.notes);
  const files = listing.files;
  if (files.length === 0) return result;

  const registryPath = path.join(folder, REGISTRY_FILE);
  let registry: SourceRegistry = EMPTY_REGISTRY;
  if (files.includes(registryPath)) {
    // Unreadable (too large, not a regular file, not text, not YAML): the dataset fails naming it.
    const loaded = await loadSource(sourcesRoot, registryPath);
    result.sources.push(loaded.provenance);
    const decoded = decodeSourceText(loaded.content);
    if (!decoded.ok) throw new UnreadableSource(loaded.relativePath, decoded.reason);
    if (decoded.warning) result.notes.push({ source: loaded.relativePath, message: decoded.warning });
    const parsed = parseSourceRegistry(decoded.text, loaded.relativePath);
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
    let kind = feedSource
      ? 'feed'
      : MARKDOWN.test(file)
        ? 'markdown'
        : JSON_FILE.test(file)
          ? 'json'
          : FEED_FILE.test(file)
            ? 'undeclared-feed'
            : undefined;
    if (kind === undefined) {
      if (!ASSET.test(file)) result.notes.push({ source: relative, message: 'ignored: not an article, feed or image file' });
      continue;
    }
    let loaded: LoadedSource;
    try {
      loaded = await loadSource(sourcesRoot, file);
    } catch (error) {
      if (!(error instanceof UnreadableSource)) throw error;
      result.rejections.push({ source: relative, location: error.location, reason: error.reason });
      continue;
    }
    result.sources.push(loaded.provenance);
    const decoded = decodeSourceText(loaded.content, { xml: kind === 'feed' || kind === 'undeclared-feed' });
    if (!decoded.ok) {
      result.rejections.push({ source: relative, location: 'file', reason: decoded.reason });
      continue;
    }
    if (decoded.warning) result.notes.push({ source: relative, message: decoded.warning });
    // A JSON Feed no source declares is a feed without rights, as an undeclared XML feed is, not a JSON article.
    if (kind === 'json' && isJsonFeed(decoded.text)) kind = 'undeclared-feed';
    // Readers get UTF-8 whatever the file's encoding (UTF-16, windows-1252...), BOM removed.
    const text = { relativePath: relative, content: Buffer.from(decoded.text, 'utf8') };
    let batch: DraftBatch;
    if (feedSource) batch = readFeed(text, feedSource);
    else if (kind === 'markdown') batch = readMarkdownArticle(text);
    else if (kind === 'json') batch = readJsonArticles(text);
    else {
      batch = {
        drafts: [],
        rejections: [
          {
            source: relative,
            location: 'document',
            reason: `feed not declared in articles/${REGISTRY_FILE}: its rights cannot be resolved`,
          },
        ],
        notes: [],
      };
    }
    const rejections = [...batch.rejections];
    result.notes.push(...batch.notes);
    const trackingPixels: string[] = [];
    let itemsWithPixels = 0;
    for (const draft of batch.drafts) {
      const outcome = finaliseDraft(draft, registry);
      if (outcome.article) result.records.push(outcome.article);
      if (outcome.rejection) rejections.push(outcome.rejection);
      result.notes.push(...outcome.notes);
      if (outcome.trackingPixels?.length) {
        trackingPixels.push(...outcome.trackingPixels);
        itemsWithPixels++;
      }
    }
    if (trackingPixels.length > 0) result.notes.push(trackingPixelNote(relative, trackingPixels, itemsWithPixels));
    // A file's rejections in document order (record 2 before record 10), however they were found.
    result.rejections.push(...rejections.sort((a, b) => locationOrder(a.location) - locationOrder(b.location)));
  }
  return result;
}

function locationOrder(location: string): number {
  const index = /\d+/.exec(location);
  return index ? Number(index[0]) : 0;
}
