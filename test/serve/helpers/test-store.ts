import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DatasetName } from '../../../src/model/dataset.js';
import type { FreshnessFacts } from '../../../src/model/freshness.js';
import { FolderStore } from '../../../src/publish/folder-store.js';
import { articles, calendarEvents, consensus, investors, trades } from './records.js';

const DAY = 86_400_000;

export interface PublishedIds {
  articles: string;
  calendar: string;
  'smart-money': string;
}

/**
 * Publishes bundles through the real store (stage + commit: digests, canonical JSON, pointers),
 * as the pipeline's publish step does. Switch point for pipeline-built bundles: replace the
 * resources below with a `pdsnap build` over `pdsnap sample` sources.
 */
export async function publishDataset(
  store: FolderStore,
  dataset: DatasetName,
  resources: Record<string, unknown[]>,
  options: { generatedAt: Date; freshUntil: Date; facts?: Partial<FreshnessFacts> },
): Promise<string> {
  const generatedAt = options.generatedAt.toISOString();
  const staged = await store.stageArrays(dataset, resources);
  const result = await store.commit(
    staged,
    {
      generatedAt,
      facts: { generatedAt, ...options.facts },
      freshUntil: options.freshUntil.toISOString(),
      allowStale: false,
      sources: [{ path: `${dataset}/source.json`, bytes: 1, sha256: 'a'.repeat(64) }],
    },
    options.generatedAt,
  );
  return result.snapshotId;
}

export function articleResources(now: Date) {
  return { articles: articles(now) };
}

export function calendarResources(now: Date) {
  return { events: calendarEvents('2026-10-01', 182, new Date(now.getTime() - DAY).toISOString()) };
}

export function smartMoneyResources() {
  return { investors: investors(), consensus: consensus(), trades: trades() };
}

/** A temp store with all three datasets current and fresh for a week after `now`. */
export async function makeStore(now: Date, datasets: readonly DatasetName[] = ['articles', 'calendar', 'smart-money']) {
  const root = await mkdtemp(path.join(tmpdir(), 'pdsnap-serve-'));
  const store = new FolderStore(path.join(root, 'snapshots'));
  const generatedAt = new Date(now.getTime() - 3_600_000);
  const freshUntil = new Date(now.getTime() + 7 * DAY);
  const ids: Partial<PublishedIds> = {};
  if (datasets.includes('articles')) {
    ids.articles = await publishDataset(store, 'articles', articleResources(now), {
      generatedAt,
      freshUntil,
      facts: { latestPublishedAt: new Date(now.getTime() - 3_600_000).toISOString() },
    });
  }
  if (datasets.includes('calendar')) {
    ids.calendar = await publishDataset(store, 'calendar', calendarResources(now), {
      generatedAt,
      freshUntil,
      facts: { oldestVerifiedAt: new Date(now.getTime() - DAY).toISOString(), coverageThrough: '2027-03-31' },
    });
  }
  if (datasets.includes('smart-money')) {
    ids['smart-money'] = await publishDataset(store, 'smart-money', smartMoneyResources(), {
      generatedAt,
      freshUntil,
      facts: { oldestPeriod: '2026-09-30' },
    });
  }
  return { root, store, ids };
}
