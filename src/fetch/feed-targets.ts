import path from 'node:path';
import { parseSourceRegistry, REGISTRY_FILE } from '../ingest/articles/source-registry.js';
import { readSidecar, SIDECAR_PATTERN, sidecarCandidates } from '../ingest/calendar/sidecar.js';
import { listSourceFiles, loadSource, relativeSourcePath, UnreadableSource } from '../ingest/source-files.js';
import { SourceProblem } from '../ingest/source-problem.js';
import { decodeSourceText } from '../ingest/source-text.js';
import type { DatasetName } from '../model/dataset.js';
import { FetchConfigError } from './fetch-errors.js';
import type { FetchTarget } from './fetch-target.js';
import { expandHeaders } from './header-values.js';

/**
 * The feeds and provider exports that say where they come from: a source of articles/sources.yaml
 * with `feed.url`, a calendar sidecar with `url` (docs/sources-fetch.md). Read with the schemas
 * `build` reads them with; each lands in the very file `build` reads. An entry `build` would reject
 * is named in a note and not fetched.
 */
export async function feedTargets(
  sourcesRoot: string,
  datasets: readonly DatasetName[],
  env: NodeJS.ProcessEnv,
): Promise<{ targets: FetchTarget[]; notes: string[] }> {
  const targets: FetchTarget[] = [];
  const notes: string[] = [];
  if (datasets.includes('articles')) await articleFeeds(sourcesRoot, env, targets, notes);
  if (datasets.includes('calendar')) await calendarExports(sourcesRoot, env, targets, notes);
  const byPath = new Map<string, FetchTarget>();
  for (const target of targets) {
    const other = byPath.get(target.path);
    if (other !== undefined && other.url !== target.url) {
      throw new FetchConfigError(`${target.path} would be fetched from two addresses, ${other.url} and ${target.url}`);
    }
    byPath.set(target.path, target);
  }
  return { targets: [...byPath.values()], notes };
}

async function articleFeeds(sourcesRoot: string, env: NodeJS.ProcessEnv, targets: FetchTarget[], notes: string[]): Promise<void> {
  const file = path.join(sourcesRoot, 'articles', REGISTRY_FILE);
  const text = await sourceText(sourcesRoot, file);
  if (text === null) return;
  const shown = relativeSourcePath(sourcesRoot, file);
  let parsed;
  try {
    parsed = parseSourceRegistry(text, shown);
  } catch (error) {
    if (error instanceof UnreadableSource) throw new FetchConfigError(error.message);
    throw error;
  }
  for (const rejection of parsed.rejections) notes.push(`${rejection.source} ${rejection.location}: ${rejection.reason}; not fetched`);
  for (const source of parsed.registry.byId.values()) {
    if (source.feed?.url === undefined) continue;
    targets.push({
      kind: 'feed',
      url: source.feed.url,
      path: `articles/${source.feed.path.split(/[\\/]/).join('/')}`,
      headers: expandHeaders(source.feed.headers ?? {}, `${shown} (${source.id}) feed`, env),
      conditional: true,
      check: null,
    });
  }
}

async function calendarExports(sourcesRoot: string, env: NodeJS.ProcessEnv, targets: FetchTarget[], notes: string[]): Promise<void> {
  const listing = await listSourceFiles(sourcesRoot, path.join(sourcesRoot, 'calendar'));
  const files = new Set(listing.files);
  for (const sidecarFile of listing.files.filter((file) => SIDECAR_PATTERN.test(path.basename(file)))) {
    const shown = relativeSourcePath(sourcesRoot, sidecarFile);
    const text = await sourceText(sourcesRoot, sidecarFile);
    if (text === null) continue;
    let sidecar;
    try {
      sidecar = readSidecar(text, sidecarFile);
    } catch (error) {
      if (!(error instanceof SourceProblem)) throw error;
      notes.push(`${shown}: ${error.message}; not fetched`);
      continue;
    }
    if (sidecar.fetch === undefined) continue;
    const target = exportFileOf(sidecarFile, sidecar.format, files);
    if (target === null) {
      throw new FetchConfigError(
        `${shown}: which file does its url fill? Name the sidecar after the file, extension included (e.g. events.csv.meta.yaml)`,
      );
    }
    targets.push({
      kind: 'calendar-export',
      url: sidecar.fetch.url,
      path: relativeSourcePath(sourcesRoot, target),
      headers: expandHeaders(sidecar.fetch.headers, shown, env),
      conditional: true,
      check: null,
    });
  }
}

const DATA_EXTENSION = /\.(json|xml|csv|ya?ml)$/i;

/**
 * The file a sidecar describes: `x.json.meta.yaml` -> `x.json`; `x.meta.yaml` -> the one file it
 * belongs to (as build pairs them), or, before the first fetch, `x.json` or `x.xml` by its format.
 */
function exportFileOf(sidecarFile: string, format: string, files: ReadonlySet<string>): string | null {
  const stem = sidecarFile.replace(SIDECAR_PATTERN, '');
  if (DATA_EXTENSION.test(stem)) return stem;
  const owners = [...files].filter((file) => !SIDECAR_PATTERN.test(path.basename(file)) && sidecarCandidates(file).includes(sidecarFile));
  if (owners.length === 1) return owners[0]!;
  if (owners.length === 0 && format === 'provider-json') return `${stem}.json`;
  if (owners.length === 0 && format === 'provider-xml') return `${stem}.xml`;
  return null;
}

/** A source file as text, read the way build reads it; null when it does not exist. */
async function sourceText(sourcesRoot: string, file: string): Promise<string | null> {
  let loaded;
  try {
    loaded = await loadSource(sourcesRoot, file);
  } catch (error) {
    if (error instanceof UnreadableSource && / \(ENOENT\)$/.test(error.reason)) return null;
    if (error instanceof UnreadableSource) throw new FetchConfigError(error.message);
    throw error;
  }
  const decoded = decodeSourceText(loaded.content);
  if (!decoded.ok) throw new FetchConfigError(`${loaded.relativePath}: ${decoded.reason}`);
  return decoded.text;
}
