import { DATASET_RESOURCES, type DatasetName } from '../model/dataset.js';
import { Manifest, PART_PATH, READ_FORMATS, resourceOfPath } from '../model/manifest.js';
import { compareText } from '../lib/text-order.js';
import { formatZodIssues } from '../lib/zod-issues.js';
import { canonicalJson } from './canonical-json.js';
import { type ManifestBody, snapshotIdFor } from './snapshot-id.js';
import { BundleIntegrityError } from './store-errors.js';
import type { ManifestFields, StagedBundle } from './staged-bundle.js';

/**
 * Checks a manifest's text against its schema, its snapshot id and its dataset's resources. Every
 * store (folder or bucket) reads manifests through this, so a bundle is judged the same wherever it is.
 */
export function parseManifest(snapshotId: string, manifestText: string): Manifest {
  const notJson = notJsonReason(manifestText);
  if (notJson) throw new BundleIntegrityError(snapshotId, `manifest.json is ${notJson}`);
  const raw = safeJson(manifestText);
  const format = (raw as { format?: unknown } | undefined)?.format;
  if (typeof format === 'number' && !READ_FORMATS.includes(format)) {
    throw new BundleIntegrityError(
      snapshotId,
      `bundle format ${format} is not read by this pdsnap (it reads formats ${READ_FORMATS.join(' and ')}): rebuild it with pdsnap build`,
    );
  }
  const parsed = Manifest.safeParse(raw);
  if (!parsed.success) {
    throw new BundleIntegrityError(snapshotId, `manifest.json is invalid: ${formatZodIssues(parsed.error, undefined, 'manifest')}`);
  }
  const manifest = parsed.data;
  const { snapshotId: declared, ...body } = manifest;
  if (declared !== snapshotId || snapshotIdFor(body) !== snapshotId) {
    throw new BundleIntegrityError(snapshotId, 'manifest does not match its snapshot id (edited after publishing?)');
  }
  const expected = Object.keys(DATASET_RESOURCES[manifest.dataset]).sort();
  const listed = [...new Set(manifest.files.map((f) => resourceOfPath(f.path)))].sort();
  if (expected.join(',') !== listed.join(',')) {
    throw new BundleIntegrityError(snapshotId, `manifest lists resources ${listed.join(', ')}; expected ${expected.join(', ')}`);
  }
  if ((manifest.servingIndex !== undefined) !== hasServingIndex(manifest.dataset)) {
    throw new BundleIntegrityError(
      snapshotId,
      `a ${manifest.dataset} manifest must ${hasServingIndex(manifest.dataset) ? '' : 'not '}list a serving index`,
    );
  }
  // Parts of each resource are numbered from 00000 without a gap, so none can go missing unnoticed.
  const seen = new Map<string, number>();
  for (const file of manifest.files) {
    const [, resource, part] = PART_PATH.exec(file.path)!;
    const next = seen.get(resource!) ?? 0;
    if (Number(part) !== next)
      throw new BundleIntegrityError(snapshotId, `manifest lists ${file.path} out of order (expected part ${next})`);
    seen.set(resource!, next + 1);
  }
  return manifest;
}

/** What a manifest says of a staged bundle and its build, before the id is derived. */
export function manifestBodyOf(staged: StagedBundle, fields: ManifestFields): ManifestBody {
  return {
    format: staged.format,
    dataset: staged.dataset,
    generatedAt: fields.generatedAt,
    facts: fields.facts,
    freshUntil: fields.freshUntil,
    allowStale: fields.allowStale,
    ...(fields.acceptedDrift ? { acceptedDrift: fields.acceptedDrift } : {}),
    sources: fields.sources,
    files: staged.files,
    ...(staged.servingIndex ? { servingIndex: staged.servingIndex } : {}),
  };
}

/** The manifest of a staged bundle: its id is derived from the content (snapshot-id.ts). */
export function manifestFor(body: ManifestBody): Manifest {
  const sorted = { ...body, sources: [...body.sources].sort((a, b) => compareText(a.path, b.path)) };
  return Manifest.parse({ ...sorted, snapshotId: snapshotIdFor(sorted) });
}

/** The fields of a published manifest, to publish the same bundle into another store (sync). */
export function fieldsOf(manifest: Manifest): ManifestFields {
  const { generatedAt, facts, freshUntil, allowStale, acceptedDrift, sources } = manifest;
  return { generatedAt, facts, freshUntil, allowStale, ...(acceptedDrift ? { acceptedDrift } : {}), sources };
}

/** Key-sorted and indented: deterministic bytes that a person can still read with cat. */
export function manifestText(manifest: Manifest): string {
  return `${JSON.stringify(JSON.parse(canonicalJson(manifest)), null, 2)}\n`;
}

/** Every file a manifest lists: the parts, then the serving index. */
export function bundleFiles(manifest: Manifest): Array<{ path: string; bytes: number; sha256: string }> {
  return [...manifest.files, ...(manifest.servingIndex ? [manifest.servingIndex] : [])];
}

/** Datasets whose bundles carry a serving index: the one whose size grows with the market. */
export function hasServingIndex(dataset: DatasetName): boolean {
  return dataset === 'smart-money';
}

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Why a store file's text is not a JSON document ("empty", or the parser's own words), or
 * undefined when it is one: so a truncated or overwritten manifest or pointer is named as such,
 * not as a schema mismatch of `undefined`.
 */
export function notJsonReason(text: string): string | undefined {
  if (text.trim() === '') return 'empty';
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    return `not JSON: ${(error as Error).message}`;
  }
}
