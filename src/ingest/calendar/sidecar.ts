import { z } from 'zod';
import { readCurationMetadata, type CurationMetadata } from './curation-metadata.js';
import { isObject, parseJsonSource, parseYamlText } from './curated-document.js';
import { SourceProblem } from '../source-problem.js';
import { formatZodIssues } from '../../lib/zod-issues.js';
import { FetchHeaders, FetchUrl } from '../../model/fetch-declaration.js';

export const SIDECAR_PATTERN = /\.meta\.(ya?ml|json)$/i;
const SIDECAR_SUFFIXES = ['.meta.yaml', '.meta.yml', '.meta.json'];

export type SourceFormat = 'curated' | 'provider-json' | 'provider-xml';

/** Curation metadata kept beside a file that cannot carry it itself (a CSV, a provider export). */
export interface Sidecar {
  format: SourceFormat;
  meta: CurationMetadata;
  /** Title keyword -> category, in the order written; the first keyword found wins. */
  categories: [keyword: string, category: string][];
  defaultCategory?: string;
  /** Where `pdsnap fetch` downloads the file this sidecar describes (docs/sources-fetch.md); absent for files kept by hand. */
  fetch?: { url: string; headers: Record<string, string> };
}

const SidecarShape = z
  .object({
    format: z.enum(['curated', 'provider-json', 'provider-xml']).default('curated'),
    timeZone: z.string().optional(),
    license: z.string().optional(),
    attribution: z.unknown().optional(),
    verifiedAt: z.string().optional(),
    defaultCategory: z.string().trim().min(1).optional(),
    categories: z.record(z.string(), z.string().trim().min(1)).optional(),
    url: FetchUrl.optional(),
    headers: FetchHeaders.optional(),
  })
  .strict()
  .refine((sidecar) => sidecar.headers === undefined || sidecar.url !== undefined, {
    message: 'headers are sent to url: give url too',
    path: ['headers'],
  });

/** Names a sidecar of `dir/file.ext` may have, most specific first: `file.ext.meta.yaml`, then `file.meta.yaml`. */
export function sidecarCandidates(dataPath: string): string[] {
  const withoutExtension = dataPath.replace(/\.[^./]+$/, '');
  return [...SIDECAR_SUFFIXES.map((s) => dataPath + s), ...SIDECAR_SUFFIXES.map((s) => withoutExtension + s)];
}

export function readSidecar(text: string, fileName: string): Sidecar {
  let value: unknown;
  if (/\.json$/i.test(fileName)) {
    value = parseJsonSource(text);
  } else {
    value = parseYamlText(text);
  }
  if (!isObject(value)) throw new SourceProblem('a sidecar must be a mapping of curation fields');
  const shape = SidecarShape.safeParse(value);
  if (!shape.success) {
    throw new SourceProblem(`invalid sidecar: ${formatZodIssues(shape.error, undefined, 'sidecar')}`);
  }
  const { format, categories, defaultCategory, url, headers } = shape.data;
  return {
    format,
    meta: readCurationMetadata(value),
    categories: Object.entries(categories ?? {}),
    ...(defaultCategory ? { defaultCategory } : {}),
    ...(url ? { fetch: { url, headers: headers ?? {} } } : {}),
  };
}
