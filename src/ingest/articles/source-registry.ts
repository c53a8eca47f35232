import path from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { Locale } from '../../model/article.js';
import { NonEmpty, Slug } from '../../model/primitives.js';
import type { Rejection } from '../../model/report.js';
import { Rights } from '../../model/rights.js';
import { formatZodIssues } from './zod-issues.js';

export const REGISTRY_FILE = 'sources.yaml';

export const FEED_FORMATS = ['rss', 'atom', 'jsonfeed'] as const;
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
    /** Relative to the `articles/` folder; there is no network: a feed is a local file. */
    path: NonEmpty.refine((p) => !path.isAbsolute(p) && !p.split(/[\\/]/).includes('..'), {
      message: 'must be a path inside articles/',
    }),
    /** Omitted: sniffed from the document. */
    format: z.enum(FEED_FORMATS).optional(),
  })
  .strict();

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
 * Reads the registry. A broken file rejects the whole file (nothing in it can be trusted); a bad
 * entry rejects that entry only, and articles naming it are later rejected as unresolvable.
 */
export function parseSourceRegistry(
  text: string,
  relativePath: string,
): { registry: SourceRegistry; rejections: Rejection[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const firstError = doc.errors[0];
  if (firstError) {
    const line = lineCounter.linePos(firstError.pos[0]).line;
    return {
      registry: { byId: new Map(), available: false },
      rejections: [{ source: relativePath, location: `line ${line}`, reason: `invalid YAML: ${firstLine(firstError.message)}` }],
    };
  }
  const root: unknown = doc.toJS();
  const shape = z.object({ sources: z.array(z.unknown()) }).strict().safeParse(root);
  if (!shape.success) {
    return {
      registry: { byId: new Map(), available: false },
      rejections: [{ source: relativePath, location: 'document', reason: `expected a "sources" list: ${formatZodIssues(shape.error)}` }],
    };
  }

  const byId = new Map<string, RegisteredSource>();
  const rejections: Rejection[] = [];
  shape.data.sources.forEach((raw, index) => {
    const node = doc.getIn(['sources', index], true) as { range?: [number, number, number] } | undefined;
    const line = node?.range ? lineCounter.linePos(node.range[0]).line : undefined;
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

function firstLine(message: string): string {
  return message.split('\n')[0]!.trim();
}
