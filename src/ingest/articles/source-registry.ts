import path from 'node:path';
import { z } from 'zod';
import { Locale } from '../../model/article.js';
import { NonEmpty, Slug } from '../../model/primitives.js';
import type { Rejection } from '../../model/report.js';
import { Rights } from '../../model/rights.js';
import { FetchHeaders, FetchUrl } from '../../model/fetch-declaration.js';
import { UnreadableSource } from '../source-files.js';
import { parseYamlDocument, YamlTextError } from '../yaml-text.js';
import { formatZodIssues } from '../../lib/zod-issues.js';

export const REGISTRY_FILE = 'sources.yaml';

const FEED_FORMATS = ['rss', 'atom', 'jsonfeed'] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];

/** Attribution as the registry and front matter may write it: a link, if any, must be http(s). */
export const WrittenAttribution = z
  .object({
    source: NonEmpty,
    url: z.url({ protocol: /^https?$/ }).optional(),
    text: NonEmpty,
  })
  .strict();

const FeedDeclaration = z
  .object({
    /** Relative to the `articles/` folder: build reads the feed from this file, never from the network. */
    path: NonEmpty.refine((p) => !path.isAbsolute(p) && !p.split(/[\\/]/).includes('..'), {
      message: 'must be a path inside articles/',
    }),
    /** Omitted: sniffed from the document. */
    format: z.enum(FEED_FORMATS).optional(),
    /** Where `pdsnap fetch` downloads the feed into `path` from (docs/sources-fetch.md). */
    url: FetchUrl.optional(),
    /** Request headers; a value may name environment variables: `Bearer ${HARBOR_WIRE_TOKEN}`. */
    headers: FetchHeaders.optional(),
  })
  .strict()
  .refine((feed) => feed.headers === undefined || feed.url !== undefined, { message: 'headers are sent to feed.url: give url too' });

/** One licensed source, as an editor declares it in `articles/sources.yaml`. */
export const RegisteredSource = z
  .object({
    id: Slug(80),
    name: z.string().optional(),
    locale: Locale,
    rights: Rights,
    attribution: WrittenAttribution,
    defaults: z.object({ category: NonEmpty.optional(), author: NonEmpty.optional() }).strict().optional(),
    feed: FeedDeclaration.optional(),
  })
  .strict();
export type RegisteredSource = z.infer<typeof RegisteredSource>;

export interface SourceRegistry {
  byId: ReadonlyMap<string, RegisteredSource>;
  /** Whether the registry file was present and readable; unknown ids are explained differently. */
  available: boolean;
}

export const EMPTY_REGISTRY: SourceRegistry = { byId: new Map(), available: false };

/**
 * Reads the registry. The dataset needs it (rights, locales and feeds come from it), so a file that
 * cannot be read as a registry at all (not YAML, an alias bomb, no `sources` list) is an
 * UnreadableSource, which fails the dataset naming the file, rather than a build that quietly
 * publishes only the articles that need no registry. A bad entry rejects that entry only, and
 * articles naming it are later rejected as unresolvable.
 */
export function parseSourceRegistry(text: string, relativePath: string): { registry: SourceRegistry; rejections: Rejection[] } {
  let doc;
  try {
    doc = parseYamlDocument(text);
  } catch (error) {
    if (!(error instanceof YamlTextError)) throw error;
    throw new UnreadableSource(
      relativePath,
      `invalid YAML: ${error.message}`,
      error.line === undefined ? 'document' : `line ${error.line}`,
    );
  }
  const shape = z
    .object({ sources: z.array(z.unknown()) })
    .strict()
    .safeParse(doc.value);
  if (!shape.success) {
    throw new UnreadableSource(relativePath, `expected a "sources" list: ${formatZodIssues(shape.error)}`, 'document');
  }

  const byId = new Map<string, RegisteredSource>();
  const rejections: Rejection[] = [];
  shape.data.sources.forEach((raw, index) => {
    const line = doc.lineOf(['sources', index]);
    const id = typeof raw === 'object' && raw !== null ? (raw as { id?: unknown }).id : undefined;
    const location = `sources[${index}]${typeof id === 'string' ? ` (${id})` : ''}${line ? `, line ${line}` : ''}`;
    const entry = RegisteredSource.safeParse(raw);
    if (!entry.success) {
      rejections.push({ source: relativePath, location, reason: `invalid source: ${formatZodIssues(entry.error)}` });
    } else if (byId.has(entry.data.id)) {
      rejections.push({ source: relativePath, location, reason: `duplicate source id "${entry.data.id}"; the first one is kept` });
    } else {
      byId.set(entry.data.id, entry.data);
    }
  });
  return { registry: { byId, available: true }, rejections };
}
